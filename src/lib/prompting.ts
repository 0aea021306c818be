// When payctl may ask a person something: a terminal on stdin and stdout, CI unset, no --no-input.
// Commands (base-command.ts) and the did-you-mean hook both ask only then, and say why not.

/** Why no prompt may be shown now, or undefined when one may. */
export function whyNoPrompt(noInput: boolean): string | undefined {
  if (noInput) return '--no-input was given';
  if (process.env.CI) return 'CI is set';
  if (!process.stdin.isTTY || !process.stdout.isTTY) return 'stdin or stdout is not a terminal';
  return undefined;
}
