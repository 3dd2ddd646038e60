// Tests start real servers the same way the launcher does.
export * from '../../cli/process.js';
