// Original file: proto/stripefs/v1/stripefs.proto


export interface StatfsRequest {
}

export interface StatfsRequest__Output {
}
