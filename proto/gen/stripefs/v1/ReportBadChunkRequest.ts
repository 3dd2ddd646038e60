// Original file: proto/stripefs/v1/stripefs.proto


export interface ReportBadChunkRequest {
  'ostId'?: (number);
  'objectId'?: (string);
  'reason'?: (string);
  'poolId'?: (number);
  'pg'?: (number);
}

export interface ReportBadChunkRequest__Output {
  'ostId': (number);
  'objectId': (string);
  'reason': (string);
  'poolId': (number);
  'pg': (number);
}
