// Original file: proto/stripefs/v1/stripefs.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { PingRequest as _stripefs_v1_PingRequest, PingRequest__Output as _stripefs_v1_PingRequest__Output } from '../../stripefs/v1/PingRequest.js';
import type { PingResponse as _stripefs_v1_PingResponse, PingResponse__Output as _stripefs_v1_PingResponse__Output } from '../../stripefs/v1/PingResponse.js';

export interface HealthServiceClient extends grpc.Client {
  Ping(argument: _stripefs_v1_PingRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_PingResponse__Output>): grpc.ClientUnaryCall;
  Ping(argument: _stripefs_v1_PingRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_PingResponse__Output>): grpc.ClientUnaryCall;
  Ping(argument: _stripefs_v1_PingRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_PingResponse__Output>): grpc.ClientUnaryCall;
  Ping(argument: _stripefs_v1_PingRequest, callback: grpc.requestCallback<_stripefs_v1_PingResponse__Output>): grpc.ClientUnaryCall;
  ping(argument: _stripefs_v1_PingRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_PingResponse__Output>): grpc.ClientUnaryCall;
  ping(argument: _stripefs_v1_PingRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_PingResponse__Output>): grpc.ClientUnaryCall;
  ping(argument: _stripefs_v1_PingRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_PingResponse__Output>): grpc.ClientUnaryCall;
  ping(argument: _stripefs_v1_PingRequest, callback: grpc.requestCallback<_stripefs_v1_PingResponse__Output>): grpc.ClientUnaryCall;
  
}

export interface HealthServiceHandlers extends grpc.UntypedServiceImplementation {
  Ping: grpc.handleUnaryCall<_stripefs_v1_PingRequest__Output, _stripefs_v1_PingResponse>;
  
}

export interface HealthServiceDefinition extends grpc.ServiceDefinition {
  Ping: MethodDefinition<_stripefs_v1_PingRequest, _stripefs_v1_PingResponse, _stripefs_v1_PingRequest__Output, _stripefs_v1_PingResponse__Output>
}
