// Original file: proto/stripefs/v1/stripefs.proto


export interface SetXattrResponse {
}

export interface SetXattrResponse__Output {
}
