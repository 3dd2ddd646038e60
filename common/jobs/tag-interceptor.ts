// Puts a client's RequestTag on every gRPC call it makes, as metadata. Given
// per call (CallOptions.interceptors), not per channel, so clients of one
// process with different job ids may share channels.
import * as grpc from '@grpc/grpc-js';
import {
  CLIENT_NAME_METADATA_KEY,
  JOB_ID_METADATA_KEY,
  parseTag,
  type RequestTag,
  SESSION_METADATA_KEY,
} from './job-id.js';

/** Puts `tag` on one call's metadata (the client name only where the receiver lists clients: the MDS). */
export function setTag(metadata: grpc.Metadata, tag: RequestTag, withClientName: boolean): void {
  metadata.set(JOB_ID_METADATA_KEY, tag.jobId);
  metadata.set(SESSION_METADATA_KEY, tag.session);
  if (withClientName && tag.clientName) metadata.set(CLIENT_NAME_METADATA_KEY, tag.clientName);
}

export function tagInterceptor(tag: RequestTag, withClientName: boolean): grpc.Interceptor {
  return (options, nextCall) =>
    new grpc.InterceptingCall(nextCall(options), {
      start(metadata, listener, next) {
        setTag(metadata, tag, withClientName);
        next(metadata, listener);
      },
    });
}

/** Call options that tag a call (nothing when there is no tag). */
export function taggedCallOptions(tag: RequestTag | undefined, withClientName = false): grpc.CallOptions {
  return tag ? { interceptors: [tagInterceptor(tag, withClientName)] } : {};
}

/** The tag of an incoming call (see parseTag: malformed is REQ_INVALID). */
export function tagOfCall(call: { metadata: grpc.Metadata }): RequestTag | undefined {
  return parseTag((key) => {
    const value = call.metadata.get(key)[0];
    return typeof value === 'string' ? value : undefined;
  });
}
