// Original file: proto/stripefs/v1/stripefs.proto


export interface RemoveXattrResponse {
}

export interface RemoveXattrResponse__Output {
}
