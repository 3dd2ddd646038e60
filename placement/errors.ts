/** Error codes raised by the placement library; callers map them to transport status at the edges. */
export type PlacementErrorCode =
  | 'PLACEMENT_INVALID_MAP'
  | 'PLACEMENT_INVALID_RULE'
  | 'PLACEMENT_CEPH_PARSE'
  | 'PLACEMENT_UNSUPPORTED';

export class PlacementError extends Error {
  readonly code: PlacementErrorCode;

  constructor(code: PlacementErrorCode, message: string) {
    super(message);
    this.name = 'PlacementError';
    this.code = code;
  }
}

/**
 * Assertions stay on in production: a broken invariant here means a wrong placement, which
 * silently loses redundancy, so we would rather crash loudly.
 */
export function assert(condition: boolean, message: string): asserts condition {
  if (!condition) throw new Error(`placement invariant violated: ${message}`);
}
