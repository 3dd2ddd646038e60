// Original file: proto/stripefs/v1/stripefs.proto


export interface ReportBadChunkRequest {
  'ostId'?: (number);
  'objectId'?: (string);
  'reason'?: (string);
}

export interface ReportBadChunkRequest__Output {
  'ostId': (number);
  'objectId': (string);
  'reason': (string);
}
