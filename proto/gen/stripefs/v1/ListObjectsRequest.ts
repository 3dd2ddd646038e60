// Original file: proto/stripefs/v1/stripefs.proto


export interface ListObjectsRequest {
  'ostId'?: (number);
  'poolId'?: (number);
  'pg'?: (number);
  'cursor'?: (string);
  'limit'?: (number);
}

export interface ListObjectsRequest__Output {
  'ostId': (number);
  'poolId': (number);
  'pg': (number);
  'cursor': (string);
  'limit': (number);
}
