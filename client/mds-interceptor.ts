// The one interceptor of a client's MDS channels: it tags each call with the
// client's job (job statistics, common/jobs/tag-interceptor.ts), signs it as
// the client's identity (common/auth/proof.ts) and keeps the data-path tickets
// of its answers (client/tickets.ts). One layer where there were three: each
// grpc-js interceptor is another InterceptingCall and listener per call, a
// cost a stat (a small call) felt.
import * as grpc from '@grpc/grpc-js';
import { AUTH_METADATA_KEY, type CallSigner } from '../common/auth/proof.js';
import type { RequestTag } from '../common/jobs/job-id.js';
import { setTag } from '../common/jobs/tag-interceptor.js';
import type { TicketCache } from './tickets.js';

export function mdsInterceptor(parts: {
  tag: RequestTag | undefined;
  signer: CallSigner | undefined;
  tickets: TicketCache;
}): grpc.Interceptor {
  const { tag, signer, tickets } = parts;
  return (options, nextCall) =>
    new grpc.InterceptingCall(nextCall(options), {
      start(metadata, _listener, next) {
        if (tag) setTag(metadata, tag, true);
        if (signer) metadata.set(AUTH_METADATA_KEY, signer.sign(options.method_definition.path));
        next(metadata, {
          onReceiveMessage: (message: unknown, pass: (message: unknown) => void) => {
            tickets.harvest(message);
            pass(message);
          },
        });
      },
    });
}
