#!/usr/bin/env node
import { reportError } from './output.js';
// The `stripefs` command.
import { buildProgram } from './program.js';

buildProgram()
  .parseAsync(process.argv)
  .catch((err: unknown) => {
    process.exitCode = reportError(err);
  });
