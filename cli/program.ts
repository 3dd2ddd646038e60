// Every command of the `stripefs` CLI, assembled apart from main.ts so tests
// can run commands in-process.
import { Command } from 'commander';
import { registerAdminCommands } from './commands/admin.js';
import { registerAuditCommands } from './commands/audit.js';
import { registerAuthCommands } from './commands/auth.js';
import { registerCheckpointCommands } from './commands/ckpt.js';
import { registerClientCommands } from './commands/clients.js';
import { registerClusterCommands } from './commands/cluster.js';
import { registerDashboardCommand } from './commands/dashboard.js';
import { registerDatasetCommands } from './commands/dataset.js';
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
    .showHelpAfterError('(run with --help for usage)')
    .option(
      '--keyring <file>',
      'sign as this identity (default: $STRIPEFS_KEYRING, else ./data/admin.keyring)',
    )
    .hook('preAction', (command) => {
      // The one place the flag is read: everything below resolves the identity from auth.keyring.
      const keyring = command.opts<{ keyring?: string }>().keyring;
      if (keyring) process.env.STRIPEFS_KEYRING = keyring;
    });
  registerClusterCommands(program);
  registerAdminCommands(program);
  registerAuthCommands(program);
  registerAuditCommands(program);
  registerClientCommands(program);
  registerFileCommands(program);
  registerPlacementCommands(program);
  registerFsckCommands(program);
  registerCheckpointCommands(program);
  registerDatasetCommands(program);
  registerMountCommands(program);
  registerS3Commands(program);
  registerTopCommand(program);
  registerDashboardCommand(program);
  return program;
}
