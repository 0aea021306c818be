// What bin/run.js loads: oclif's runtime and the root help, bundled by scripts/bundle-cli.mjs into
// dist/bundle/main.js. Each command is a bundle entry of its own (dist/bundle/commands/**), so a
// command loads only its own modules; oclif imports it by the manifest's path when it runs.

export { execute } from '@oclif/core/execute';
export { default as PayctlHelp } from './help.js';
