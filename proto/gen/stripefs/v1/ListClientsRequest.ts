// Original file: proto/stripefs/v1/stripefs.proto


export interface ListClientsRequest {
}

export interface ListClientsRequest__Output {
}
