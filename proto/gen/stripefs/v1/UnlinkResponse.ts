// Original file: proto/stripefs/v1/stripefs.proto


export interface UnlinkResponse {
}

export interface UnlinkResponse__Output {
}
