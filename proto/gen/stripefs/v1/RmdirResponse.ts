// Original file: proto/stripefs/v1/stripefs.proto


export interface RmdirResponse {
}

export interface RmdirResponse__Output {
}
