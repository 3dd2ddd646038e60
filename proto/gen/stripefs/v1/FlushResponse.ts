// Original file: proto/stripefs/v1/stripefs.proto


export interface FlushResponse {
}

export interface FlushResponse__Output {
}
