// oclif's command_not_found hook: suggest the nearest command, never run it unasked. Without a
// person at a terminal it prints the suggestion and exits 2; on a terminal it asks, default No, and
// runs the suggestion with every argument that was typed, or nothing at all.

import { Errors, type Hook } from '@oclif/core';
import { EXIT_CODES } from '../lib/api/errors.js';
import { drainOutput } from '../lib/drain.js';
import { whyNoPrompt } from '../lib/prompting.js';
import { shellLine, suggestCommand } from '../lib/suggest.js';

const hook: Hook.CommandNotFound = async function (options) {
  const { config } = options;
  const argv = options.argv ?? [];
  const hidden = new Set(config.commands.filter((command) => command.hidden).map((command) => command.id));
  const ids = [...config.commandIDs, ...config.commands.flatMap((command) => command.aliases)].filter((id) => !hidden.has(id));
  const typed = shellLine([config.bin, ...options.id.split(':'), ...argv]);
  const suggestion = suggestCommand(options.id, argv, ids);
  const say = (text: string) => process.stderr.write(`${text}\n`);
  // oclif exits at once after the hook: what it said must have reached a slow reader first.
  const refuse = async () => {
    await drainOutput();
    return Errors.exit(EXIT_CODES.usage);
  };
  // The words that stood for the command; those after them were its arguments.
  const commandWords = suggestion ? options.id.split(':').slice(0, suggestion.id.split(':').length) : options.id.split(':');
  say(`"${commandWords.join(' ')}" is not a ${config.bin} command.`);
  if (!suggestion) {
    say(`Run \`${config.bin} help\` for the list of commands.`);
    return refuse();
  }
  const line = shellLine([config.bin, ...suggestion.id.split(':'), ...suggestion.argv]);
  const noPrompt = whyNoPrompt(argv.includes('--no-input'));
  if (noPrompt) {
    say(`Did you mean:\n  ${line}\nNothing was run (not asking: ${noPrompt}); you typed:\n  ${typed}`);
    return refuse();
  }
  const { confirm } = await import('@inquirer/prompts');
  const accepted = await confirm({ message: `Run \`${line}\` instead?`, default: false }).catch(() => false);
  if (!accepted) {
    say('Nothing was run.');
    return refuse();
  }
  return config.runCommand(suggestion.id, suggestion.argv);
};

export default hook;
