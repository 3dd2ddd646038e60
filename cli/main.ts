#!/usr/bin/env node
import { reportError } from './output.js';
// The `stripefs` command.
import { buildProgram } from './program.js';

// `stripefs ls / | head -1`: once the reader of the output has gone, stop quietly like other
// Unix tools instead of dying on an unhandled EPIPE.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});

buildProgram()
  .parseAsync(process.argv)
  .catch((err: unknown) => {
    process.exitCode = reportError(err);
  });
