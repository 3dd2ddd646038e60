// Original file: proto/stripefs/v1/stripefs.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { DeleteObjectRequest as _stripefs_v1_DeleteObjectRequest, DeleteObjectRequest__Output as _stripefs_v1_DeleteObjectRequest__Output } from '../../stripefs/v1/DeleteObjectRequest.js';
import type { DeleteObjectResponse as _stripefs_v1_DeleteObjectResponse, DeleteObjectResponse__Output as _stripefs_v1_DeleteObjectResponse__Output } from '../../stripefs/v1/DeleteObjectResponse.js';
import type { DigestObjectsRequest as _stripefs_v1_DigestObjectsRequest, DigestObjectsRequest__Output as _stripefs_v1_DigestObjectsRequest__Output } from '../../stripefs/v1/DigestObjectsRequest.js';
import type { DigestObjectsResponse as _stripefs_v1_DigestObjectsResponse, DigestObjectsResponse__Output as _stripefs_v1_DigestObjectsResponse__Output } from '../../stripefs/v1/DigestObjectsResponse.js';
import type { FlushRequest as _stripefs_v1_FlushRequest, FlushRequest__Output as _stripefs_v1_FlushRequest__Output } from '../../stripefs/v1/FlushRequest.js';
import type { FlushResponse as _stripefs_v1_FlushResponse, FlushResponse__Output as _stripefs_v1_FlushResponse__Output } from '../../stripefs/v1/FlushResponse.js';
import type { ListObjectsRequest as _stripefs_v1_ListObjectsRequest, ListObjectsRequest__Output as _stripefs_v1_ListObjectsRequest__Output } from '../../stripefs/v1/ListObjectsRequest.js';
import type { ListObjectsResponse as _stripefs_v1_ListObjectsResponse, ListObjectsResponse__Output as _stripefs_v1_ListObjectsResponse__Output } from '../../stripefs/v1/ListObjectsResponse.js';
import type { MarkStaleRequest as _stripefs_v1_MarkStaleRequest, MarkStaleRequest__Output as _stripefs_v1_MarkStaleRequest__Output } from '../../stripefs/v1/MarkStaleRequest.js';
import type { MarkStaleResponse as _stripefs_v1_MarkStaleResponse, MarkStaleResponse__Output as _stripefs_v1_MarkStaleResponse__Output } from '../../stripefs/v1/MarkStaleResponse.js';
import type { ReadRangeRequest as _stripefs_v1_ReadRangeRequest, ReadRangeRequest__Output as _stripefs_v1_ReadRangeRequest__Output } from '../../stripefs/v1/ReadRangeRequest.js';
import type { ReadRangeResponse as _stripefs_v1_ReadRangeResponse, ReadRangeResponse__Output as _stripefs_v1_ReadRangeResponse__Output } from '../../stripefs/v1/ReadRangeResponse.js';
import type { RecoverPgRequest as _stripefs_v1_RecoverPgRequest, RecoverPgRequest__Output as _stripefs_v1_RecoverPgRequest__Output } from '../../stripefs/v1/RecoverPgRequest.js';
import type { RecoverPgResponse as _stripefs_v1_RecoverPgResponse, RecoverPgResponse__Output as _stripefs_v1_RecoverPgResponse__Output } from '../../stripefs/v1/RecoverPgResponse.js';
import type { ScrubPgRequest as _stripefs_v1_ScrubPgRequest, ScrubPgRequest__Output as _stripefs_v1_ScrubPgRequest__Output } from '../../stripefs/v1/ScrubPgRequest.js';
import type { ScrubPgResponse as _stripefs_v1_ScrubPgResponse, ScrubPgResponse__Output as _stripefs_v1_ScrubPgResponse__Output } from '../../stripefs/v1/ScrubPgResponse.js';
import type { StatObjectRequest as _stripefs_v1_StatObjectRequest, StatObjectRequest__Output as _stripefs_v1_StatObjectRequest__Output } from '../../stripefs/v1/StatObjectRequest.js';
import type { StatObjectResponse as _stripefs_v1_StatObjectResponse, StatObjectResponse__Output as _stripefs_v1_StatObjectResponse__Output } from '../../stripefs/v1/StatObjectResponse.js';
import type { WriteChunkRequest as _stripefs_v1_WriteChunkRequest, WriteChunkRequest__Output as _stripefs_v1_WriteChunkRequest__Output } from '../../stripefs/v1/WriteChunkRequest.js';
import type { WriteChunkResponse as _stripefs_v1_WriteChunkResponse, WriteChunkResponse__Output as _stripefs_v1_WriteChunkResponse__Output } from '../../stripefs/v1/WriteChunkResponse.js';

export interface OssServiceClient extends grpc.Client {
  DeleteObject(argument: _stripefs_v1_DeleteObjectRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_DeleteObjectResponse__Output>): grpc.ClientUnaryCall;
  DeleteObject(argument: _stripefs_v1_DeleteObjectRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_DeleteObjectResponse__Output>): grpc.ClientUnaryCall;
  DeleteObject(argument: _stripefs_v1_DeleteObjectRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_DeleteObjectResponse__Output>): grpc.ClientUnaryCall;
  DeleteObject(argument: _stripefs_v1_DeleteObjectRequest, callback: grpc.requestCallback<_stripefs_v1_DeleteObjectResponse__Output>): grpc.ClientUnaryCall;
  deleteObject(argument: _stripefs_v1_DeleteObjectRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_DeleteObjectResponse__Output>): grpc.ClientUnaryCall;
  deleteObject(argument: _stripefs_v1_DeleteObjectRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_DeleteObjectResponse__Output>): grpc.ClientUnaryCall;
  deleteObject(argument: _stripefs_v1_DeleteObjectRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_DeleteObjectResponse__Output>): grpc.ClientUnaryCall;
  deleteObject(argument: _stripefs_v1_DeleteObjectRequest, callback: grpc.requestCallback<_stripefs_v1_DeleteObjectResponse__Output>): grpc.ClientUnaryCall;
  
  DigestObjects(argument: _stripefs_v1_DigestObjectsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_DigestObjectsResponse__Output>): grpc.ClientUnaryCall;
  DigestObjects(argument: _stripefs_v1_DigestObjectsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_DigestObjectsResponse__Output>): grpc.ClientUnaryCall;
  DigestObjects(argument: _stripefs_v1_DigestObjectsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_DigestObjectsResponse__Output>): grpc.ClientUnaryCall;
  DigestObjects(argument: _stripefs_v1_DigestObjectsRequest, callback: grpc.requestCallback<_stripefs_v1_DigestObjectsResponse__Output>): grpc.ClientUnaryCall;
  digestObjects(argument: _stripefs_v1_DigestObjectsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_DigestObjectsResponse__Output>): grpc.ClientUnaryCall;
  digestObjects(argument: _stripefs_v1_DigestObjectsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_DigestObjectsResponse__Output>): grpc.ClientUnaryCall;
  digestObjects(argument: _stripefs_v1_DigestObjectsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_DigestObjectsResponse__Output>): grpc.ClientUnaryCall;
  digestObjects(argument: _stripefs_v1_DigestObjectsRequest, callback: grpc.requestCallback<_stripefs_v1_DigestObjectsResponse__Output>): grpc.ClientUnaryCall;
  
  Flush(argument: _stripefs_v1_FlushRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_FlushResponse__Output>): grpc.ClientUnaryCall;
  Flush(argument: _stripefs_v1_FlushRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_FlushResponse__Output>): grpc.ClientUnaryCall;
  Flush(argument: _stripefs_v1_FlushRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_FlushResponse__Output>): grpc.ClientUnaryCall;
  Flush(argument: _stripefs_v1_FlushRequest, callback: grpc.requestCallback<_stripefs_v1_FlushResponse__Output>): grpc.ClientUnaryCall;
  flush(argument: _stripefs_v1_FlushRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_FlushResponse__Output>): grpc.ClientUnaryCall;
  flush(argument: _stripefs_v1_FlushRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_FlushResponse__Output>): grpc.ClientUnaryCall;
  flush(argument: _stripefs_v1_FlushRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_FlushResponse__Output>): grpc.ClientUnaryCall;
  flush(argument: _stripefs_v1_FlushRequest, callback: grpc.requestCallback<_stripefs_v1_FlushResponse__Output>): grpc.ClientUnaryCall;
  
  ListObjects(argument: _stripefs_v1_ListObjectsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_ListObjectsResponse__Output>): grpc.ClientUnaryCall;
  ListObjects(argument: _stripefs_v1_ListObjectsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_ListObjectsResponse__Output>): grpc.ClientUnaryCall;
  ListObjects(argument: _stripefs_v1_ListObjectsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_ListObjectsResponse__Output>): grpc.ClientUnaryCall;
  ListObjects(argument: _stripefs_v1_ListObjectsRequest, callback: grpc.requestCallback<_stripefs_v1_ListObjectsResponse__Output>): grpc.ClientUnaryCall;
  listObjects(argument: _stripefs_v1_ListObjectsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_ListObjectsResponse__Output>): grpc.ClientUnaryCall;
  listObjects(argument: _stripefs_v1_ListObjectsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_ListObjectsResponse__Output>): grpc.ClientUnaryCall;
  listObjects(argument: _stripefs_v1_ListObjectsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_ListObjectsResponse__Output>): grpc.ClientUnaryCall;
  listObjects(argument: _stripefs_v1_ListObjectsRequest, callback: grpc.requestCallback<_stripefs_v1_ListObjectsResponse__Output>): grpc.ClientUnaryCall;
  
  MarkStale(argument: _stripefs_v1_MarkStaleRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_MarkStaleResponse__Output>): grpc.ClientUnaryCall;
  MarkStale(argument: _stripefs_v1_MarkStaleRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_MarkStaleResponse__Output>): grpc.ClientUnaryCall;
  MarkStale(argument: _stripefs_v1_MarkStaleRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_MarkStaleResponse__Output>): grpc.ClientUnaryCall;
  MarkStale(argument: _stripefs_v1_MarkStaleRequest, callback: grpc.requestCallback<_stripefs_v1_MarkStaleResponse__Output>): grpc.ClientUnaryCall;
  markStale(argument: _stripefs_v1_MarkStaleRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_MarkStaleResponse__Output>): grpc.ClientUnaryCall;
  markStale(argument: _stripefs_v1_MarkStaleRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_MarkStaleResponse__Output>): grpc.ClientUnaryCall;
  markStale(argument: _stripefs_v1_MarkStaleRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_MarkStaleResponse__Output>): grpc.ClientUnaryCall;
  markStale(argument: _stripefs_v1_MarkStaleRequest, callback: grpc.requestCallback<_stripefs_v1_MarkStaleResponse__Output>): grpc.ClientUnaryCall;
  
  ReadRange(argument: _stripefs_v1_ReadRangeRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_stripefs_v1_ReadRangeResponse__Output>;
  ReadRange(argument: _stripefs_v1_ReadRangeRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_stripefs_v1_ReadRangeResponse__Output>;
  readRange(argument: _stripefs_v1_ReadRangeRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_stripefs_v1_ReadRangeResponse__Output>;
  readRange(argument: _stripefs_v1_ReadRangeRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_stripefs_v1_ReadRangeResponse__Output>;
  
  RecoverPg(argument: _stripefs_v1_RecoverPgRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_RecoverPgResponse__Output>): grpc.ClientUnaryCall;
  RecoverPg(argument: _stripefs_v1_RecoverPgRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_RecoverPgResponse__Output>): grpc.ClientUnaryCall;
  RecoverPg(argument: _stripefs_v1_RecoverPgRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_RecoverPgResponse__Output>): grpc.ClientUnaryCall;
  RecoverPg(argument: _stripefs_v1_RecoverPgRequest, callback: grpc.requestCallback<_stripefs_v1_RecoverPgResponse__Output>): grpc.ClientUnaryCall;
  recoverPg(argument: _stripefs_v1_RecoverPgRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_RecoverPgResponse__Output>): grpc.ClientUnaryCall;
  recoverPg(argument: _stripefs_v1_RecoverPgRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_RecoverPgResponse__Output>): grpc.ClientUnaryCall;
  recoverPg(argument: _stripefs_v1_RecoverPgRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_RecoverPgResponse__Output>): grpc.ClientUnaryCall;
  recoverPg(argument: _stripefs_v1_RecoverPgRequest, callback: grpc.requestCallback<_stripefs_v1_RecoverPgResponse__Output>): grpc.ClientUnaryCall;
  
  ScrubPg(argument: _stripefs_v1_ScrubPgRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_ScrubPgResponse__Output>): grpc.ClientUnaryCall;
  ScrubPg(argument: _stripefs_v1_ScrubPgRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_ScrubPgResponse__Output>): grpc.ClientUnaryCall;
  ScrubPg(argument: _stripefs_v1_ScrubPgRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_ScrubPgResponse__Output>): grpc.ClientUnaryCall;
  ScrubPg(argument: _stripefs_v1_ScrubPgRequest, callback: grpc.requestCallback<_stripefs_v1_ScrubPgResponse__Output>): grpc.ClientUnaryCall;
  scrubPg(argument: _stripefs_v1_ScrubPgRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_ScrubPgResponse__Output>): grpc.ClientUnaryCall;
  scrubPg(argument: _stripefs_v1_ScrubPgRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_ScrubPgResponse__Output>): grpc.ClientUnaryCall;
  scrubPg(argument: _stripefs_v1_ScrubPgRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_ScrubPgResponse__Output>): grpc.ClientUnaryCall;
  scrubPg(argument: _stripefs_v1_ScrubPgRequest, callback: grpc.requestCallback<_stripefs_v1_ScrubPgResponse__Output>): grpc.ClientUnaryCall;
  
  StatObject(argument: _stripefs_v1_StatObjectRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_StatObjectResponse__Output>): grpc.ClientUnaryCall;
  StatObject(argument: _stripefs_v1_StatObjectRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_StatObjectResponse__Output>): grpc.ClientUnaryCall;
  StatObject(argument: _stripefs_v1_StatObjectRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_StatObjectResponse__Output>): grpc.ClientUnaryCall;
  StatObject(argument: _stripefs_v1_StatObjectRequest, callback: grpc.requestCallback<_stripefs_v1_StatObjectResponse__Output>): grpc.ClientUnaryCall;
  statObject(argument: _stripefs_v1_StatObjectRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_StatObjectResponse__Output>): grpc.ClientUnaryCall;
  statObject(argument: _stripefs_v1_StatObjectRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_StatObjectResponse__Output>): grpc.ClientUnaryCall;
  statObject(argument: _stripefs_v1_StatObjectRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_StatObjectResponse__Output>): grpc.ClientUnaryCall;
  statObject(argument: _stripefs_v1_StatObjectRequest, callback: grpc.requestCallback<_stripefs_v1_StatObjectResponse__Output>): grpc.ClientUnaryCall;
  
  WriteChunk(metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_WriteChunkResponse__Output>): grpc.ClientWritableStream<_stripefs_v1_WriteChunkRequest>;
  WriteChunk(metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_WriteChunkResponse__Output>): grpc.ClientWritableStream<_stripefs_v1_WriteChunkRequest>;
  WriteChunk(options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_WriteChunkResponse__Output>): grpc.ClientWritableStream<_stripefs_v1_WriteChunkRequest>;
  WriteChunk(callback: grpc.requestCallback<_stripefs_v1_WriteChunkResponse__Output>): grpc.ClientWritableStream<_stripefs_v1_WriteChunkRequest>;
  writeChunk(metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_WriteChunkResponse__Output>): grpc.ClientWritableStream<_stripefs_v1_WriteChunkRequest>;
  writeChunk(metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_WriteChunkResponse__Output>): grpc.ClientWritableStream<_stripefs_v1_WriteChunkRequest>;
  writeChunk(options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_WriteChunkResponse__Output>): grpc.ClientWritableStream<_stripefs_v1_WriteChunkRequest>;
  writeChunk(callback: grpc.requestCallback<_stripefs_v1_WriteChunkResponse__Output>): grpc.ClientWritableStream<_stripefs_v1_WriteChunkRequest>;
  
}

export interface OssServiceHandlers extends grpc.UntypedServiceImplementation {
  DeleteObject: grpc.handleUnaryCall<_stripefs_v1_DeleteObjectRequest__Output, _stripefs_v1_DeleteObjectResponse>;
  
  DigestObjects: grpc.handleUnaryCall<_stripefs_v1_DigestObjectsRequest__Output, _stripefs_v1_DigestObjectsResponse>;
  
  Flush: grpc.handleUnaryCall<_stripefs_v1_FlushRequest__Output, _stripefs_v1_FlushResponse>;
  
  ListObjects: grpc.handleUnaryCall<_stripefs_v1_ListObjectsRequest__Output, _stripefs_v1_ListObjectsResponse>;
  
  MarkStale: grpc.handleUnaryCall<_stripefs_v1_MarkStaleRequest__Output, _stripefs_v1_MarkStaleResponse>;
  
  ReadRange: grpc.handleServerStreamingCall<_stripefs_v1_ReadRangeRequest__Output, _stripefs_v1_ReadRangeResponse>;
  
  RecoverPg: grpc.handleUnaryCall<_stripefs_v1_RecoverPgRequest__Output, _stripefs_v1_RecoverPgResponse>;
  
  ScrubPg: grpc.handleUnaryCall<_stripefs_v1_ScrubPgRequest__Output, _stripefs_v1_ScrubPgResponse>;
  
  StatObject: grpc.handleUnaryCall<_stripefs_v1_StatObjectRequest__Output, _stripefs_v1_StatObjectResponse>;
  
  WriteChunk: grpc.handleClientStreamingCall<_stripefs_v1_WriteChunkRequest__Output, _stripefs_v1_WriteChunkResponse>;
  
}

export interface OssServiceDefinition extends grpc.ServiceDefinition {
  DeleteObject: MethodDefinition<_stripefs_v1_DeleteObjectRequest, _stripefs_v1_DeleteObjectResponse, _stripefs_v1_DeleteObjectRequest__Output, _stripefs_v1_DeleteObjectResponse__Output>
  DigestObjects: MethodDefinition<_stripefs_v1_DigestObjectsRequest, _stripefs_v1_DigestObjectsResponse, _stripefs_v1_DigestObjectsRequest__Output, _stripefs_v1_DigestObjectsResponse__Output>
  Flush: MethodDefinition<_stripefs_v1_FlushRequest, _stripefs_v1_FlushResponse, _stripefs_v1_FlushRequest__Output, _stripefs_v1_FlushResponse__Output>
  ListObjects: MethodDefinition<_stripefs_v1_ListObjectsRequest, _stripefs_v1_ListObjectsResponse, _stripefs_v1_ListObjectsRequest__Output, _stripefs_v1_ListObjectsResponse__Output>
  MarkStale: MethodDefinition<_stripefs_v1_MarkStaleRequest, _stripefs_v1_MarkStaleResponse, _stripefs_v1_MarkStaleRequest__Output, _stripefs_v1_MarkStaleResponse__Output>
  ReadRange: MethodDefinition<_stripefs_v1_ReadRangeRequest, _stripefs_v1_ReadRangeResponse, _stripefs_v1_ReadRangeRequest__Output, _stripefs_v1_ReadRangeResponse__Output>
  RecoverPg: MethodDefinition<_stripefs_v1_RecoverPgRequest, _stripefs_v1_RecoverPgResponse, _stripefs_v1_RecoverPgRequest__Output, _stripefs_v1_RecoverPgResponse__Output>
  ScrubPg: MethodDefinition<_stripefs_v1_ScrubPgRequest, _stripefs_v1_ScrubPgResponse, _stripefs_v1_ScrubPgRequest__Output, _stripefs_v1_ScrubPgResponse__Output>
  StatObject: MethodDefinition<_stripefs_v1_StatObjectRequest, _stripefs_v1_StatObjectResponse, _stripefs_v1_StatObjectRequest__Output, _stripefs_v1_StatObjectResponse__Output>
  WriteChunk: MethodDefinition<_stripefs_v1_WriteChunkRequest, _stripefs_v1_WriteChunkResponse, _stripefs_v1_WriteChunkRequest__Output, _stripefs_v1_WriteChunkResponse__Output>
}
