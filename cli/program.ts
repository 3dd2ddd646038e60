// Every command of the `stripefs` CLI, assembled apart from main.ts so tests
// can run commands in-process.
import { Command } from 'commander';
import { registerAdminCommands } from './commands/admin.js';
import { registerCheckpointCommands } from './commands/ckpt.js';
import { registerClusterCommands } from './commands/cluster.js';
import { registerFileCommands } from './commands/files.js';
import { registerFsckCommands } from './commands/fsck.js';
import { registerMountCommands } from './commands/mount.js';
import { registerPlacementCommands } from './commands/placement.js';
import { registerS3Commands } from './commands/s3.js';
import { registerTopCommand } from './commands/top.js';

export function buildProgram(): Command {
  const program = new Command('stripefs')
    .description('stripefs: a striped parallel object store you can hold in your hands')
    .version('0.1.0')
    .showHelpAfterError('(run with --help for usage)');
  registerClusterCommands(program);
  registerAdminCommands(program);
  registerFileCommands(program);
  registerPlacementCommands(program);
  registerFsckCommands(program);
  registerCheckpointCommands(program);
  registerMountCommands(program);
  registerS3Commands(program);
  registerTopCommand(program);
  return program;
}
