// Original file: proto/stripefs/v1/stripefs.proto


export interface AuthListRequest {
}

export interface AuthListRequest__Output {
}
