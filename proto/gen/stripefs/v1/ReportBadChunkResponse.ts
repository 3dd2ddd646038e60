// Original file: proto/stripefs/v1/stripefs.proto


export interface ReportBadChunkResponse {
  'repairScheduled'?: (boolean);
}

export interface ReportBadChunkResponse__Output {
  'repairScheduled': (boolean);
}
