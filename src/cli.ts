import { parseCommandLine } from './cli/command-line';

/** Operator commands (`node dist/cli.js --help`): the command line first, the app only for a command that runs. */
async function main(): Promise<void> {
  const args = parseCommandLine(process.argv.slice(2));
  const { runCommand } = await import('./cli/run-command.js');
  await runCommand(args);
}

main().catch(async (err: unknown) => (await import('./infrastructure.js')).exitOnStartupError(err));
