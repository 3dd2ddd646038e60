// Original file: proto/stripefs/v1/stripefs.proto


export interface RenameResponse {
}

export interface RenameResponse__Output {
}
