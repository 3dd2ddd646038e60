// A cluster's own CA and server certificate, for `stripefs cluster up --tls`
// and the tests: made once with the openssl command (no native module, nothing
// to install on a Debian machine) into a folder, and kept there. The CA signs
// one certificate, made for the name clients check (tls.serverName) and for
// localhost and 127.0.0.1, which every MDS and OSS presents (common/tls.ts).
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { StripeError } from './errors.js';

export interface TlsFiles {
  caFile: string;
  certFile: string;
  keyFile: string;
}

/** Where the files of `dir` are (made or not). */
export function tlsFilesIn(dir: string): TlsFiles {
  return { caFile: join(dir, 'ca.pem'), certFile: join(dir, 'server.pem'), keyFile: join(dir, 'server.key') };
}

const DAYS = '3650';
const EC_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

function openssl(args: string[], cwd: string): void {
  try {
    execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stderr?: Buffer };
    const why =
      e.code === 'ENOENT'
        ? 'the openssl command is not installed'
        : (e.stderr?.toString().trim() ?? e.message);
    throw new StripeError('TLS_SETUP_FAILED', `openssl ${args[0]}: ${why}`);
  }
}

/** Makes a CA (ca.pem, ca.key) and a certificate it signed (server.pem, server.key) in `dir`. */
function makeTlsFiles(dir: string, serverName: string): void {
  openssl(
    [
      'req',
      '-x509',
      ...EC_KEY,
      '-keyout',
      'ca.key',
      '-out',
      'ca.pem',
      '-days',
      DAYS,
      '-subj',
      '/CN=stripefs cluster CA',
    ].concat([
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ]),
    dir,
  );
  openssl(
    ['req', ...EC_KEY, '-keyout', 'server.key', '-out', 'server.csr', '-subj', `/CN=${serverName}`],
    dir,
  );
  writeFileSync(
    join(dir, 'server.ext'),
    [
      'basicConstraints=CA:FALSE',
      'keyUsage=critical,digitalSignature',
      'extendedKeyUsage=serverAuth,clientAuth',
      `subjectAltName=DNS:${serverName},DNS:localhost,IP:127.0.0.1`,
      '',
    ].join('\n'),
  );
  const serial = `0x${execFileSync('openssl', ['rand', '-hex', '16']).toString().trim()}`;
  openssl(
    ['x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-set_serial', serial].concat([
      '-out',
      'server.pem',
      '-days',
      DAYS,
      '-extfile',
      'server.ext',
    ]),
    dir,
  );
  for (const name of ['server.csr', 'server.ext']) rmSync(join(dir, name));
  for (const name of ['ca.key', 'server.key']) chmodSync(join(dir, name), 0o600);
}

/**
 * The CA and certificate in `dir`, made when missing (whole or not at all: they are made in a
 * folder beside it, then renamed). `serverName` is the name the certificate is made for.
 */
export function ensureTlsFiles(dir: string, serverName = 'stripefs'): TlsFiles {
  const files = tlsFilesIn(dir);
  if (Object.values(files).every((file) => existsSync(file))) return files;
  if (existsSync(dir))
    throw new StripeError('TLS_SETUP_FAILED', `${dir} exists but lacks ca.pem, server.pem or server.key`);
  const making = `${dir}.making-${process.pid}`;
  rmSync(making, { recursive: true, force: true });
  mkdirSync(making, { recursive: true, mode: 0o700 });
  try {
    makeTlsFiles(making, serverName);
    renameSync(making, dir);
  } catch (err) {
    rmSync(making, { recursive: true, force: true });
    throw err;
  }
  return files;
}
