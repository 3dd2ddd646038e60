// Original file: proto/stripefs/v1/stripefs.proto


export interface AuthWhoamiRequest {
}

export interface AuthWhoamiRequest__Output {
}
