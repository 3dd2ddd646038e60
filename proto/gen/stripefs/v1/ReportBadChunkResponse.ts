// Original file: proto/stripefs/v1/stripefs.proto


export interface ReportBadChunkResponse {
}

export interface ReportBadChunkResponse__Output {
}
