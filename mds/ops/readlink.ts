// readlink: a symlink's target, from acknowledged state.
import { StripeError } from '../../common/index.js';
import type { ReadlinkRequest__Output, ReadlinkResponse } from '../../proto/index.js';
import type { Namespace } from '../namespace.js';
import { parsePath } from '../paths.js';

export async function readlink(ns: Namespace, request: ReadlinkRequest__Output): Promise<ReadlinkResponse> {
  const { node } = await ns.resolve(ns.reader, parsePath(request.path));
  if (node.type !== 'symlink' || node.target === undefined)
    throw new StripeError('NS_NOT_SYMLINK', `${request.path} is not a symlink`, { path: request.path });
  return { target: node.target };
}
