// Copies a byte range of one stripefs file into an open handle through the
// client library (sequential reads with readahead, write-behind writes).
import { createHash, type Hash } from 'node:crypto';
import type { StripeClient, StripeFileHandle } from '../../client/index.js';
import { s3Error } from '../errors.js';
import { S3_LIMITS } from '../limits.js';

export async function copyRange(
  client: StripeClient,
  fromPath: string,
  start: number,
  lengthBytes: number,
  to: StripeFileHandle,
  at: number,
  md5?: Hash,
): Promise<void> {
  const from = await client.open(fromPath, 'r');
  try {
    const buffer = Buffer.allocUnsafe(Math.min(S3_LIMITS.getChunkBytes, Math.max(1, lengthBytes)));
    for (let done = 0; done < lengthBytes; ) {
      const want = Math.min(buffer.length, lengthBytes - done);
      const { bytesRead } = await from.read(buffer, 0, want, start + done);
      if (bytesRead === 0)
        throw s3Error('InternalError', `${fromPath} ended at ${start + done}, before ${start + lengthBytes}`);
      md5?.update(buffer.subarray(0, bytesRead));
      await to.write(buffer, 0, bytesRead, at + done);
      done += bytesRead;
    }
  } finally {
    await from.close();
  }
}

export function md5Of(): Hash {
  return createHash('md5');
}
