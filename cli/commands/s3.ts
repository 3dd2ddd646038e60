// `stripefs s3`: the S3 gateway in the foreground. Prints a JSON ready line
// on stdout (as the servers do) and how to reach it on stderr; stops on
// SIGTERM or SIGINT.
import type { Command } from 'commander';
import { loadConfig } from '../../common/config.js';
import type { ConnectFlags } from '../connect.js';

interface S3Flags extends ConnectFlags {
  listen?: string;
  region?: string;
  domain?: string;
  accessKey?: string;
  secretKey?: string;
  credentialsFile?: string;
  keyringDir?: string;
  tlsCert?: string;
  tlsKey?: string;
}

async function runGateway(flags: S3Flags): Promise<void> {
  const config = loadConfig({
    env: process.env,
    overrides: {
      'mds.address': flags.mds,
      's3.listen': flags.listen,
      's3.region': flags.region,
      's3.domain': flags.domain,
      's3.accessKey': flags.accessKey,
      's3.secretKey': flags.secretKey,
      's3.credentialsFile': flags.credentialsFile,
      's3.keyringDir': flags.keyringDir,
      's3.tlsCert': flags.tlsCert,
      's3.tlsKey': flags.tlsKey,
    },
  });
  // The logger (pino) loads only for this command, so the CLI's start stays light.
  const { createLogger } = await import('../../common/logging.js');
  const log = createLogger('s3', config['log.level']);
  const { startS3Gateway } = await import('../../s3/index.js');
  const gateway = await startS3Gateway(config, log);
  const host = config['s3.listen'].slice(0, config['s3.listen'].lastIndexOf(':'));
  const endpoint = `${gateway.scheme}://${host}:${gateway.port}`;
  process.stdout.write(`${JSON.stringify({ event: 'ready', server: 's3', port: gateway.port, endpoint })}\n`);
  process.stderr.write(`stripefs s3: serving the cluster at ${config['mds.address']} on ${endpoint}\n`);
  if (gateway.generated) {
    process.stderr.write(
      `stripefs s3: no access key configured (STRIPEFS_S3_ACCESS_KEY, STRIPEFS_S3_SECRET_KEY); this run accepts\n` +
        `  AWS_ACCESS_KEY_ID=${gateway.generated.accessKeyId} AWS_SECRET_ACCESS_KEY=${gateway.generated.secretKey}\n`,
    );
  }
  if (config['s3.keyringDir'] !== '')
    process.stderr.write(
      `stripefs s3: identities with a keyring in ${config['s3.keyringDir']} sign as NAME (stripefs auth s3-key NAME.keyring)\n`,
    );
  process.stderr.write(`  try: aws --endpoint-url ${endpoint} s3 ls\n`);
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
  await gateway.close();
}

export function registerS3Commands(program: Command): void {
  program
    .command('s3')
    .description('serve the cluster over the S3 protocol: buckets are top-level directories, keys are paths')
    .option('--mds <host:port>', 'MDS address (default STRIPEFS_MDS or 127.0.0.1:7070)')
    .option(
      '--listen <host:port>',
      'listen address (default s3.listen, 127.0.0.1:9000; port 0: any free port)',
    )
    .option('--region <name>', 'region to report (default us-east-1)')
    .option('--domain <name>', 'base domain for virtual-hosted-style requests (BUCKET.DOMAIN)')
    .option('--access-key <id>', 'access key id (default STRIPEFS_S3_ACCESS_KEY)')
    .option('--secret-key <secret>', 'secret key (default STRIPEFS_S3_SECRET_KEY)')
    .option('--credentials-file <path>', 'more key pairs, one "ACCESS_KEY SECRET_KEY [NAME]" a line')
    .option(
      '--keyring-dir <dir>',
      'keyrings of the identities it serves (NAME.keyring): access key NAME acts as NAME, with its caps',
    )
    .option('--tls-cert <pem>', 'serve HTTPS with this certificate (and --tls-key)')
    .option('--tls-key <pem>', 'the private key of --tls-cert')
    .action(runGateway);
}
