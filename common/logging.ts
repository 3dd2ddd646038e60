// Structured logs (pino, JSON lines on stderr so stdout stays free for data).
import { pino } from 'pino';

export type Logger = pino.Logger;

export function createLogger(name: string, level = 'info'): Logger {
  return pino({ name, level, base: { pid: process.pid, name } }, pino.destination(2));
}

/** A logger that drops everything, for tests and in-process tools. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
