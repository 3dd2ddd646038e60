// Original file: proto/stripefs/v1/stripefs.proto


export interface GetPgHoldersRequest {
  'poolId'?: (number);
  'pg'?: (number);
}

export interface GetPgHoldersRequest__Output {
  'poolId': (number);
  'pg': (number);
}
