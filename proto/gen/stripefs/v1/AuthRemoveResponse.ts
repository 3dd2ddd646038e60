// Original file: proto/stripefs/v1/stripefs.proto


export interface AuthRemoveResponse {
}

export interface AuthRemoveResponse__Output {
}
