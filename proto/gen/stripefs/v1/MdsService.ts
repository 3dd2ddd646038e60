// Original file: proto/stripefs/v1/stripefs.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { AdminOstRequest as _stripefs_v1_AdminOstRequest, AdminOstRequest__Output as _stripefs_v1_AdminOstRequest__Output } from '../../stripefs/v1/AdminOstRequest.js';
import type { AdminOstResponse as _stripefs_v1_AdminOstResponse, AdminOstResponse__Output as _stripefs_v1_AdminOstResponse__Output } from '../../stripefs/v1/AdminOstResponse.js';
import type { AuthAddRequest as _stripefs_v1_AuthAddRequest, AuthAddRequest__Output as _stripefs_v1_AuthAddRequest__Output } from '../../stripefs/v1/AuthAddRequest.js';
import type { AuthAddResponse as _stripefs_v1_AuthAddResponse, AuthAddResponse__Output as _stripefs_v1_AuthAddResponse__Output } from '../../stripefs/v1/AuthAddResponse.js';
import type { AuthGetRequest as _stripefs_v1_AuthGetRequest, AuthGetRequest__Output as _stripefs_v1_AuthGetRequest__Output } from '../../stripefs/v1/AuthGetRequest.js';
import type { AuthGetResponse as _stripefs_v1_AuthGetResponse, AuthGetResponse__Output as _stripefs_v1_AuthGetResponse__Output } from '../../stripefs/v1/AuthGetResponse.js';
import type { AuthListRequest as _stripefs_v1_AuthListRequest, AuthListRequest__Output as _stripefs_v1_AuthListRequest__Output } from '../../stripefs/v1/AuthListRequest.js';
import type { AuthListResponse as _stripefs_v1_AuthListResponse, AuthListResponse__Output as _stripefs_v1_AuthListResponse__Output } from '../../stripefs/v1/AuthListResponse.js';
import type { AuthRemoveRequest as _stripefs_v1_AuthRemoveRequest, AuthRemoveRequest__Output as _stripefs_v1_AuthRemoveRequest__Output } from '../../stripefs/v1/AuthRemoveRequest.js';
import type { AuthRemoveResponse as _stripefs_v1_AuthRemoveResponse, AuthRemoveResponse__Output as _stripefs_v1_AuthRemoveResponse__Output } from '../../stripefs/v1/AuthRemoveResponse.js';
import type { AuthRotateRequest as _stripefs_v1_AuthRotateRequest, AuthRotateRequest__Output as _stripefs_v1_AuthRotateRequest__Output } from '../../stripefs/v1/AuthRotateRequest.js';
import type { AuthRotateResponse as _stripefs_v1_AuthRotateResponse, AuthRotateResponse__Output as _stripefs_v1_AuthRotateResponse__Output } from '../../stripefs/v1/AuthRotateResponse.js';
import type { AuthSetCapsRequest as _stripefs_v1_AuthSetCapsRequest, AuthSetCapsRequest__Output as _stripefs_v1_AuthSetCapsRequest__Output } from '../../stripefs/v1/AuthSetCapsRequest.js';
import type { AuthSetCapsResponse as _stripefs_v1_AuthSetCapsResponse, AuthSetCapsResponse__Output as _stripefs_v1_AuthSetCapsResponse__Output } from '../../stripefs/v1/AuthSetCapsResponse.js';
import type { AuthWhoamiRequest as _stripefs_v1_AuthWhoamiRequest, AuthWhoamiRequest__Output as _stripefs_v1_AuthWhoamiRequest__Output } from '../../stripefs/v1/AuthWhoamiRequest.js';
import type { AuthWhoamiResponse as _stripefs_v1_AuthWhoamiResponse, AuthWhoamiResponse__Output as _stripefs_v1_AuthWhoamiResponse__Output } from '../../stripefs/v1/AuthWhoamiResponse.js';
import type { CommitManyRequest as _stripefs_v1_CommitManyRequest, CommitManyRequest__Output as _stripefs_v1_CommitManyRequest__Output } from '../../stripefs/v1/CommitManyRequest.js';
import type { CommitManyResponse as _stripefs_v1_CommitManyResponse, CommitManyResponse__Output as _stripefs_v1_CommitManyResponse__Output } from '../../stripefs/v1/CommitManyResponse.js';
import type { CommitRequest as _stripefs_v1_CommitRequest, CommitRequest__Output as _stripefs_v1_CommitRequest__Output } from '../../stripefs/v1/CommitRequest.js';
import type { CommitResponse as _stripefs_v1_CommitResponse, CommitResponse__Output as _stripefs_v1_CommitResponse__Output } from '../../stripefs/v1/CommitResponse.js';
import type { CreateManyRequest as _stripefs_v1_CreateManyRequest, CreateManyRequest__Output as _stripefs_v1_CreateManyRequest__Output } from '../../stripefs/v1/CreateManyRequest.js';
import type { CreateManyResponse as _stripefs_v1_CreateManyResponse, CreateManyResponse__Output as _stripefs_v1_CreateManyResponse__Output } from '../../stripefs/v1/CreateManyResponse.js';
import type { CreateRequest as _stripefs_v1_CreateRequest, CreateRequest__Output as _stripefs_v1_CreateRequest__Output } from '../../stripefs/v1/CreateRequest.js';
import type { CreateResponse as _stripefs_v1_CreateResponse, CreateResponse__Output as _stripefs_v1_CreateResponse__Output } from '../../stripefs/v1/CreateResponse.js';
import type { EvictClientRequest as _stripefs_v1_EvictClientRequest, EvictClientRequest__Output as _stripefs_v1_EvictClientRequest__Output } from '../../stripefs/v1/EvictClientRequest.js';
import type { EvictClientResponse as _stripefs_v1_EvictClientResponse, EvictClientResponse__Output as _stripefs_v1_EvictClientResponse__Output } from '../../stripefs/v1/EvictClientResponse.js';
import type { GetMapRequest as _stripefs_v1_GetMapRequest, GetMapRequest__Output as _stripefs_v1_GetMapRequest__Output } from '../../stripefs/v1/GetMapRequest.js';
import type { GetMapResponse as _stripefs_v1_GetMapResponse, GetMapResponse__Output as _stripefs_v1_GetMapResponse__Output } from '../../stripefs/v1/GetMapResponse.js';
import type { GetPgHoldersRequest as _stripefs_v1_GetPgHoldersRequest, GetPgHoldersRequest__Output as _stripefs_v1_GetPgHoldersRequest__Output } from '../../stripefs/v1/GetPgHoldersRequest.js';
import type { GetPgHoldersResponse as _stripefs_v1_GetPgHoldersResponse, GetPgHoldersResponse__Output as _stripefs_v1_GetPgHoldersResponse__Output } from '../../stripefs/v1/GetPgHoldersResponse.js';
import type { GetTicketsRequest as _stripefs_v1_GetTicketsRequest, GetTicketsRequest__Output as _stripefs_v1_GetTicketsRequest__Output } from '../../stripefs/v1/GetTicketsRequest.js';
import type { GetTicketsResponse as _stripefs_v1_GetTicketsResponse, GetTicketsResponse__Output as _stripefs_v1_GetTicketsResponse__Output } from '../../stripefs/v1/GetTicketsResponse.js';
import type { GetXattrRequest as _stripefs_v1_GetXattrRequest, GetXattrRequest__Output as _stripefs_v1_GetXattrRequest__Output } from '../../stripefs/v1/GetXattrRequest.js';
import type { GetXattrResponse as _stripefs_v1_GetXattrResponse, GetXattrResponse__Output as _stripefs_v1_GetXattrResponse__Output } from '../../stripefs/v1/GetXattrResponse.js';
import type { HeartbeatRequest as _stripefs_v1_HeartbeatRequest, HeartbeatRequest__Output as _stripefs_v1_HeartbeatRequest__Output } from '../../stripefs/v1/HeartbeatRequest.js';
import type { HeartbeatResponse as _stripefs_v1_HeartbeatResponse, HeartbeatResponse__Output as _stripefs_v1_HeartbeatResponse__Output } from '../../stripefs/v1/HeartbeatResponse.js';
import type { ListClientsRequest as _stripefs_v1_ListClientsRequest, ListClientsRequest__Output as _stripefs_v1_ListClientsRequest__Output } from '../../stripefs/v1/ListClientsRequest.js';
import type { ListClientsResponse as _stripefs_v1_ListClientsResponse, ListClientsResponse__Output as _stripefs_v1_ListClientsResponse__Output } from '../../stripefs/v1/ListClientsResponse.js';
import type { ListXattrsRequest as _stripefs_v1_ListXattrsRequest, ListXattrsRequest__Output as _stripefs_v1_ListXattrsRequest__Output } from '../../stripefs/v1/ListXattrsRequest.js';
import type { ListXattrsResponse as _stripefs_v1_ListXattrsResponse, ListXattrsResponse__Output as _stripefs_v1_ListXattrsResponse__Output } from '../../stripefs/v1/ListXattrsResponse.js';
import type { MkdirRequest as _stripefs_v1_MkdirRequest, MkdirRequest__Output as _stripefs_v1_MkdirRequest__Output } from '../../stripefs/v1/MkdirRequest.js';
import type { MkdirResponse as _stripefs_v1_MkdirResponse, MkdirResponse__Output as _stripefs_v1_MkdirResponse__Output } from '../../stripefs/v1/MkdirResponse.js';
import type { OpenManyRequest as _stripefs_v1_OpenManyRequest, OpenManyRequest__Output as _stripefs_v1_OpenManyRequest__Output } from '../../stripefs/v1/OpenManyRequest.js';
import type { OpenManyResponse as _stripefs_v1_OpenManyResponse, OpenManyResponse__Output as _stripefs_v1_OpenManyResponse__Output } from '../../stripefs/v1/OpenManyResponse.js';
import type { OpenRequest as _stripefs_v1_OpenRequest, OpenRequest__Output as _stripefs_v1_OpenRequest__Output } from '../../stripefs/v1/OpenRequest.js';
import type { OpenResponse as _stripefs_v1_OpenResponse, OpenResponse__Output as _stripefs_v1_OpenResponse__Output } from '../../stripefs/v1/OpenResponse.js';
import type { ReadAuditRequest as _stripefs_v1_ReadAuditRequest, ReadAuditRequest__Output as _stripefs_v1_ReadAuditRequest__Output } from '../../stripefs/v1/ReadAuditRequest.js';
import type { ReadAuditResponse as _stripefs_v1_ReadAuditResponse, ReadAuditResponse__Output as _stripefs_v1_ReadAuditResponse__Output } from '../../stripefs/v1/ReadAuditResponse.js';
import type { ReaddirRequest as _stripefs_v1_ReaddirRequest, ReaddirRequest__Output as _stripefs_v1_ReaddirRequest__Output } from '../../stripefs/v1/ReaddirRequest.js';
import type { ReaddirResponse as _stripefs_v1_ReaddirResponse, ReaddirResponse__Output as _stripefs_v1_ReaddirResponse__Output } from '../../stripefs/v1/ReaddirResponse.js';
import type { ReadlinkRequest as _stripefs_v1_ReadlinkRequest, ReadlinkRequest__Output as _stripefs_v1_ReadlinkRequest__Output } from '../../stripefs/v1/ReadlinkRequest.js';
import type { ReadlinkResponse as _stripefs_v1_ReadlinkResponse, ReadlinkResponse__Output as _stripefs_v1_ReadlinkResponse__Output } from '../../stripefs/v1/ReadlinkResponse.js';
import type { RegisterOssRequest as _stripefs_v1_RegisterOssRequest, RegisterOssRequest__Output as _stripefs_v1_RegisterOssRequest__Output } from '../../stripefs/v1/RegisterOssRequest.js';
import type { RegisterOssResponse as _stripefs_v1_RegisterOssResponse, RegisterOssResponse__Output as _stripefs_v1_RegisterOssResponse__Output } from '../../stripefs/v1/RegisterOssResponse.js';
import type { RemoveXattrRequest as _stripefs_v1_RemoveXattrRequest, RemoveXattrRequest__Output as _stripefs_v1_RemoveXattrRequest__Output } from '../../stripefs/v1/RemoveXattrRequest.js';
import type { RemoveXattrResponse as _stripefs_v1_RemoveXattrResponse, RemoveXattrResponse__Output as _stripefs_v1_RemoveXattrResponse__Output } from '../../stripefs/v1/RemoveXattrResponse.js';
import type { RenameRequest as _stripefs_v1_RenameRequest, RenameRequest__Output as _stripefs_v1_RenameRequest__Output } from '../../stripefs/v1/RenameRequest.js';
import type { RenameResponse as _stripefs_v1_RenameResponse, RenameResponse__Output as _stripefs_v1_RenameResponse__Output } from '../../stripefs/v1/RenameResponse.js';
import type { ReportAuditRequest as _stripefs_v1_ReportAuditRequest, ReportAuditRequest__Output as _stripefs_v1_ReportAuditRequest__Output } from '../../stripefs/v1/ReportAuditRequest.js';
import type { ReportAuditResponse as _stripefs_v1_ReportAuditResponse, ReportAuditResponse__Output as _stripefs_v1_ReportAuditResponse__Output } from '../../stripefs/v1/ReportAuditResponse.js';
import type { ReportBadChunkRequest as _stripefs_v1_ReportBadChunkRequest, ReportBadChunkRequest__Output as _stripefs_v1_ReportBadChunkRequest__Output } from '../../stripefs/v1/ReportBadChunkRequest.js';
import type { ReportBadChunkResponse as _stripefs_v1_ReportBadChunkResponse, ReportBadChunkResponse__Output as _stripefs_v1_ReportBadChunkResponse__Output } from '../../stripefs/v1/ReportBadChunkResponse.js';
import type { RmdirRequest as _stripefs_v1_RmdirRequest, RmdirRequest__Output as _stripefs_v1_RmdirRequest__Output } from '../../stripefs/v1/RmdirRequest.js';
import type { RmdirResponse as _stripefs_v1_RmdirResponse, RmdirResponse__Output as _stripefs_v1_RmdirResponse__Output } from '../../stripefs/v1/RmdirResponse.js';
import type { SetAttrRequest as _stripefs_v1_SetAttrRequest, SetAttrRequest__Output as _stripefs_v1_SetAttrRequest__Output } from '../../stripefs/v1/SetAttrRequest.js';
import type { SetAttrResponse as _stripefs_v1_SetAttrResponse, SetAttrResponse__Output as _stripefs_v1_SetAttrResponse__Output } from '../../stripefs/v1/SetAttrResponse.js';
import type { SetLayoutRequest as _stripefs_v1_SetLayoutRequest, SetLayoutRequest__Output as _stripefs_v1_SetLayoutRequest__Output } from '../../stripefs/v1/SetLayoutRequest.js';
import type { SetLayoutResponse as _stripefs_v1_SetLayoutResponse, SetLayoutResponse__Output as _stripefs_v1_SetLayoutResponse__Output } from '../../stripefs/v1/SetLayoutResponse.js';
import type { SetXattrRequest as _stripefs_v1_SetXattrRequest, SetXattrRequest__Output as _stripefs_v1_SetXattrRequest__Output } from '../../stripefs/v1/SetXattrRequest.js';
import type { SetXattrResponse as _stripefs_v1_SetXattrResponse, SetXattrResponse__Output as _stripefs_v1_SetXattrResponse__Output } from '../../stripefs/v1/SetXattrResponse.js';
import type { StatManyRequest as _stripefs_v1_StatManyRequest, StatManyRequest__Output as _stripefs_v1_StatManyRequest__Output } from '../../stripefs/v1/StatManyRequest.js';
import type { StatManyResponse as _stripefs_v1_StatManyResponse, StatManyResponse__Output as _stripefs_v1_StatManyResponse__Output } from '../../stripefs/v1/StatManyResponse.js';
import type { StatRequest as _stripefs_v1_StatRequest, StatRequest__Output as _stripefs_v1_StatRequest__Output } from '../../stripefs/v1/StatRequest.js';
import type { StatResponse as _stripefs_v1_StatResponse, StatResponse__Output as _stripefs_v1_StatResponse__Output } from '../../stripefs/v1/StatResponse.js';
import type { StatfsRequest as _stripefs_v1_StatfsRequest, StatfsRequest__Output as _stripefs_v1_StatfsRequest__Output } from '../../stripefs/v1/StatfsRequest.js';
import type { StatfsResponse as _stripefs_v1_StatfsResponse, StatfsResponse__Output as _stripefs_v1_StatfsResponse__Output } from '../../stripefs/v1/StatfsResponse.js';
import type { SymlinkRequest as _stripefs_v1_SymlinkRequest, SymlinkRequest__Output as _stripefs_v1_SymlinkRequest__Output } from '../../stripefs/v1/SymlinkRequest.js';
import type { SymlinkResponse as _stripefs_v1_SymlinkResponse, SymlinkResponse__Output as _stripefs_v1_SymlinkResponse__Output } from '../../stripefs/v1/SymlinkResponse.js';
import type { UnlinkManyRequest as _stripefs_v1_UnlinkManyRequest, UnlinkManyRequest__Output as _stripefs_v1_UnlinkManyRequest__Output } from '../../stripefs/v1/UnlinkManyRequest.js';
import type { UnlinkManyResponse as _stripefs_v1_UnlinkManyResponse, UnlinkManyResponse__Output as _stripefs_v1_UnlinkManyResponse__Output } from '../../stripefs/v1/UnlinkManyResponse.js';
import type { UnlinkRequest as _stripefs_v1_UnlinkRequest, UnlinkRequest__Output as _stripefs_v1_UnlinkRequest__Output } from '../../stripefs/v1/UnlinkRequest.js';
import type { UnlinkResponse as _stripefs_v1_UnlinkResponse, UnlinkResponse__Output as _stripefs_v1_UnlinkResponse__Output } from '../../stripefs/v1/UnlinkResponse.js';
import type { WatchMapRequest as _stripefs_v1_WatchMapRequest, WatchMapRequest__Output as _stripefs_v1_WatchMapRequest__Output } from '../../stripefs/v1/WatchMapRequest.js';
import type { WatchMapResponse as _stripefs_v1_WatchMapResponse, WatchMapResponse__Output as _stripefs_v1_WatchMapResponse__Output } from '../../stripefs/v1/WatchMapResponse.js';

export interface MdsServiceClient extends grpc.Client {
  AdminOst(argument: _stripefs_v1_AdminOstRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_AdminOstResponse__Output>): grpc.ClientUnaryCall;
  AdminOst(argument: _stripefs_v1_AdminOstRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_AdminOstResponse__Output>): grpc.ClientUnaryCall;
  AdminOst(argument: _stripefs_v1_AdminOstRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_AdminOstResponse__Output>): grpc.ClientUnaryCall;
  AdminOst(argument: _stripefs_v1_AdminOstRequest, callback: grpc.requestCallback<_stripefs_v1_AdminOstResponse__Output>): grpc.ClientUnaryCall;
  adminOst(argument: _stripefs_v1_AdminOstRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_AdminOstResponse__Output>): grpc.ClientUnaryCall;
  adminOst(argument: _stripefs_v1_AdminOstRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_AdminOstResponse__Output>): grpc.ClientUnaryCall;
  adminOst(argument: _stripefs_v1_AdminOstRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_AdminOstResponse__Output>): grpc.ClientUnaryCall;
  adminOst(argument: _stripefs_v1_AdminOstRequest, callback: grpc.requestCallback<_stripefs_v1_AdminOstResponse__Output>): grpc.ClientUnaryCall;
  
  AuthAdd(argument: _stripefs_v1_AuthAddRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_AuthAddResponse__Output>): grpc.ClientUnaryCall;
  AuthAdd(argument: _stripefs_v1_AuthAddRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_AuthAddResponse__Output>): grpc.ClientUnaryCall;
  AuthAdd(argument: _stripefs_v1_AuthAddRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_AuthAddResponse__Output>): grpc.ClientUnaryCall;
  AuthAdd(argument: _stripefs_v1_AuthAddRequest, callback: grpc.requestCallback<_stripefs_v1_AuthAddResponse__Output>): grpc.ClientUnaryCall;
  authAdd(argument: _stripefs_v1_AuthAddRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_AuthAddResponse__Output>): grpc.ClientUnaryCall;
  authAdd(argument: _stripefs_v1_AuthAddRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_AuthAddResponse__Output>): grpc.ClientUnaryCall;
  authAdd(argument: _stripefs_v1_AuthAddRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_AuthAddResponse__Output>): grpc.ClientUnaryCall;
  authAdd(argument: _stripefs_v1_AuthAddRequest, callback: grpc.requestCallback<_stripefs_v1_AuthAddResponse__Output>): grpc.ClientUnaryCall;
  
  AuthGet(argument: _stripefs_v1_AuthGetRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_AuthGetResponse__Output>): grpc.ClientUnaryCall;
  AuthGet(argument: _stripefs_v1_AuthGetRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_AuthGetResponse__Output>): grpc.ClientUnaryCall;
  AuthGet(argument: _stripefs_v1_AuthGetRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_AuthGetResponse__Output>): grpc.ClientUnaryCall;
  AuthGet(argument: _stripefs_v1_AuthGetRequest, callback: grpc.requestCallback<_stripefs_v1_AuthGetResponse__Output>): grpc.ClientUnaryCall;
  authGet(argument: _stripefs_v1_AuthGetRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_AuthGetResponse__Output>): grpc.ClientUnaryCall;
  authGet(argument: _stripefs_v1_AuthGetRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_AuthGetResponse__Output>): grpc.ClientUnaryCall;
  authGet(argument: _stripefs_v1_AuthGetRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_AuthGetResponse__Output>): grpc.ClientUnaryCall;
  authGet(argument: _stripefs_v1_AuthGetRequest, callback: grpc.requestCallback<_stripefs_v1_AuthGetResponse__Output>): grpc.ClientUnaryCall;
  
  AuthList(argument: _stripefs_v1_AuthListRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_AuthListResponse__Output>): grpc.ClientUnaryCall;
  AuthList(argument: _stripefs_v1_AuthListRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_AuthListResponse__Output>): grpc.ClientUnaryCall;
  AuthList(argument: _stripefs_v1_AuthListRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_AuthListResponse__Output>): grpc.ClientUnaryCall;
  AuthList(argument: _stripefs_v1_AuthListRequest, callback: grpc.requestCallback<_stripefs_v1_AuthListResponse__Output>): grpc.ClientUnaryCall;
  authList(argument: _stripefs_v1_AuthListRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_AuthListResponse__Output>): grpc.ClientUnaryCall;
  authList(argument: _stripefs_v1_AuthListRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_AuthListResponse__Output>): grpc.ClientUnaryCall;
  authList(argument: _stripefs_v1_AuthListRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_AuthListResponse__Output>): grpc.ClientUnaryCall;
  authList(argument: _stripefs_v1_AuthListRequest, callback: grpc.requestCallback<_stripefs_v1_AuthListResponse__Output>): grpc.ClientUnaryCall;
  
  AuthRemove(argument: _stripefs_v1_AuthRemoveRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_AuthRemoveResponse__Output>): grpc.ClientUnaryCall;
  AuthRemove(argument: _stripefs_v1_AuthRemoveRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_AuthRemoveResponse__Output>): grpc.ClientUnaryCall;
  AuthRemove(argument: _stripefs_v1_AuthRemoveRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_AuthRemoveResponse__Output>): grpc.ClientUnaryCall;
  AuthRemove(argument: _stripefs_v1_AuthRemoveRequest, callback: grpc.requestCallback<_stripefs_v1_AuthRemoveResponse__Output>): grpc.ClientUnaryCall;
  authRemove(argument: _stripefs_v1_AuthRemoveRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_AuthRemoveResponse__Output>): grpc.ClientUnaryCall;
  authRemove(argument: _stripefs_v1_AuthRemoveRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_AuthRemoveResponse__Output>): grpc.ClientUnaryCall;
  authRemove(argument: _stripefs_v1_AuthRemoveRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_AuthRemoveResponse__Output>): grpc.ClientUnaryCall;
  authRemove(argument: _stripefs_v1_AuthRemoveRequest, callback: grpc.requestCallback<_stripefs_v1_AuthRemoveResponse__Output>): grpc.ClientUnaryCall;
  
  AuthRotate(argument: _stripefs_v1_AuthRotateRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_AuthRotateResponse__Output>): grpc.ClientUnaryCall;
  AuthRotate(argument: _stripefs_v1_AuthRotateRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_AuthRotateResponse__Output>): grpc.ClientUnaryCall;
  AuthRotate(argument: _stripefs_v1_AuthRotateRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_AuthRotateResponse__Output>): grpc.ClientUnaryCall;
  AuthRotate(argument: _stripefs_v1_AuthRotateRequest, callback: grpc.requestCallback<_stripefs_v1_AuthRotateResponse__Output>): grpc.ClientUnaryCall;
  authRotate(argument: _stripefs_v1_AuthRotateRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_AuthRotateResponse__Output>): grpc.ClientUnaryCall;
  authRotate(argument: _stripefs_v1_AuthRotateRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_AuthRotateResponse__Output>): grpc.ClientUnaryCall;
  authRotate(argument: _stripefs_v1_AuthRotateRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_AuthRotateResponse__Output>): grpc.ClientUnaryCall;
  authRotate(argument: _stripefs_v1_AuthRotateRequest, callback: grpc.requestCallback<_stripefs_v1_AuthRotateResponse__Output>): grpc.ClientUnaryCall;
  
  AuthSetCaps(argument: _stripefs_v1_AuthSetCapsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_AuthSetCapsResponse__Output>): grpc.ClientUnaryCall;
  AuthSetCaps(argument: _stripefs_v1_AuthSetCapsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_AuthSetCapsResponse__Output>): grpc.ClientUnaryCall;
  AuthSetCaps(argument: _stripefs_v1_AuthSetCapsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_AuthSetCapsResponse__Output>): grpc.ClientUnaryCall;
  AuthSetCaps(argument: _stripefs_v1_AuthSetCapsRequest, callback: grpc.requestCallback<_stripefs_v1_AuthSetCapsResponse__Output>): grpc.ClientUnaryCall;
  authSetCaps(argument: _stripefs_v1_AuthSetCapsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_AuthSetCapsResponse__Output>): grpc.ClientUnaryCall;
  authSetCaps(argument: _stripefs_v1_AuthSetCapsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_AuthSetCapsResponse__Output>): grpc.ClientUnaryCall;
  authSetCaps(argument: _stripefs_v1_AuthSetCapsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_AuthSetCapsResponse__Output>): grpc.ClientUnaryCall;
  authSetCaps(argument: _stripefs_v1_AuthSetCapsRequest, callback: grpc.requestCallback<_stripefs_v1_AuthSetCapsResponse__Output>): grpc.ClientUnaryCall;
  
  AuthWhoami(argument: _stripefs_v1_AuthWhoamiRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_AuthWhoamiResponse__Output>): grpc.ClientUnaryCall;
  AuthWhoami(argument: _stripefs_v1_AuthWhoamiRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_AuthWhoamiResponse__Output>): grpc.ClientUnaryCall;
  AuthWhoami(argument: _stripefs_v1_AuthWhoamiRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_AuthWhoamiResponse__Output>): grpc.ClientUnaryCall;
  AuthWhoami(argument: _stripefs_v1_AuthWhoamiRequest, callback: grpc.requestCallback<_stripefs_v1_AuthWhoamiResponse__Output>): grpc.ClientUnaryCall;
  authWhoami(argument: _stripefs_v1_AuthWhoamiRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_AuthWhoamiResponse__Output>): grpc.ClientUnaryCall;
  authWhoami(argument: _stripefs_v1_AuthWhoamiRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_AuthWhoamiResponse__Output>): grpc.ClientUnaryCall;
  authWhoami(argument: _stripefs_v1_AuthWhoamiRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_AuthWhoamiResponse__Output>): grpc.ClientUnaryCall;
  authWhoami(argument: _stripefs_v1_AuthWhoamiRequest, callback: grpc.requestCallback<_stripefs_v1_AuthWhoamiResponse__Output>): grpc.ClientUnaryCall;
  
  Commit(argument: _stripefs_v1_CommitRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_CommitResponse__Output>): grpc.ClientUnaryCall;
  Commit(argument: _stripefs_v1_CommitRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_CommitResponse__Output>): grpc.ClientUnaryCall;
  Commit(argument: _stripefs_v1_CommitRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_CommitResponse__Output>): grpc.ClientUnaryCall;
  Commit(argument: _stripefs_v1_CommitRequest, callback: grpc.requestCallback<_stripefs_v1_CommitResponse__Output>): grpc.ClientUnaryCall;
  commit(argument: _stripefs_v1_CommitRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_CommitResponse__Output>): grpc.ClientUnaryCall;
  commit(argument: _stripefs_v1_CommitRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_CommitResponse__Output>): grpc.ClientUnaryCall;
  commit(argument: _stripefs_v1_CommitRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_CommitResponse__Output>): grpc.ClientUnaryCall;
  commit(argument: _stripefs_v1_CommitRequest, callback: grpc.requestCallback<_stripefs_v1_CommitResponse__Output>): grpc.ClientUnaryCall;
  
  CommitMany(argument: _stripefs_v1_CommitManyRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_CommitManyResponse__Output>): grpc.ClientUnaryCall;
  CommitMany(argument: _stripefs_v1_CommitManyRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_CommitManyResponse__Output>): grpc.ClientUnaryCall;
  CommitMany(argument: _stripefs_v1_CommitManyRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_CommitManyResponse__Output>): grpc.ClientUnaryCall;
  CommitMany(argument: _stripefs_v1_CommitManyRequest, callback: grpc.requestCallback<_stripefs_v1_CommitManyResponse__Output>): grpc.ClientUnaryCall;
  commitMany(argument: _stripefs_v1_CommitManyRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_CommitManyResponse__Output>): grpc.ClientUnaryCall;
  commitMany(argument: _stripefs_v1_CommitManyRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_CommitManyResponse__Output>): grpc.ClientUnaryCall;
  commitMany(argument: _stripefs_v1_CommitManyRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_CommitManyResponse__Output>): grpc.ClientUnaryCall;
  commitMany(argument: _stripefs_v1_CommitManyRequest, callback: grpc.requestCallback<_stripefs_v1_CommitManyResponse__Output>): grpc.ClientUnaryCall;
  
  Create(argument: _stripefs_v1_CreateRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_CreateResponse__Output>): grpc.ClientUnaryCall;
  Create(argument: _stripefs_v1_CreateRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_CreateResponse__Output>): grpc.ClientUnaryCall;
  Create(argument: _stripefs_v1_CreateRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_CreateResponse__Output>): grpc.ClientUnaryCall;
  Create(argument: _stripefs_v1_CreateRequest, callback: grpc.requestCallback<_stripefs_v1_CreateResponse__Output>): grpc.ClientUnaryCall;
  create(argument: _stripefs_v1_CreateRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_CreateResponse__Output>): grpc.ClientUnaryCall;
  create(argument: _stripefs_v1_CreateRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_CreateResponse__Output>): grpc.ClientUnaryCall;
  create(argument: _stripefs_v1_CreateRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_CreateResponse__Output>): grpc.ClientUnaryCall;
  create(argument: _stripefs_v1_CreateRequest, callback: grpc.requestCallback<_stripefs_v1_CreateResponse__Output>): grpc.ClientUnaryCall;
  
  CreateMany(argument: _stripefs_v1_CreateManyRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_CreateManyResponse__Output>): grpc.ClientUnaryCall;
  CreateMany(argument: _stripefs_v1_CreateManyRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_CreateManyResponse__Output>): grpc.ClientUnaryCall;
  CreateMany(argument: _stripefs_v1_CreateManyRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_CreateManyResponse__Output>): grpc.ClientUnaryCall;
  CreateMany(argument: _stripefs_v1_CreateManyRequest, callback: grpc.requestCallback<_stripefs_v1_CreateManyResponse__Output>): grpc.ClientUnaryCall;
  createMany(argument: _stripefs_v1_CreateManyRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_CreateManyResponse__Output>): grpc.ClientUnaryCall;
  createMany(argument: _stripefs_v1_CreateManyRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_CreateManyResponse__Output>): grpc.ClientUnaryCall;
  createMany(argument: _stripefs_v1_CreateManyRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_CreateManyResponse__Output>): grpc.ClientUnaryCall;
  createMany(argument: _stripefs_v1_CreateManyRequest, callback: grpc.requestCallback<_stripefs_v1_CreateManyResponse__Output>): grpc.ClientUnaryCall;
  
  EvictClient(argument: _stripefs_v1_EvictClientRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_EvictClientResponse__Output>): grpc.ClientUnaryCall;
  EvictClient(argument: _stripefs_v1_EvictClientRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_EvictClientResponse__Output>): grpc.ClientUnaryCall;
  EvictClient(argument: _stripefs_v1_EvictClientRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_EvictClientResponse__Output>): grpc.ClientUnaryCall;
  EvictClient(argument: _stripefs_v1_EvictClientRequest, callback: grpc.requestCallback<_stripefs_v1_EvictClientResponse__Output>): grpc.ClientUnaryCall;
  evictClient(argument: _stripefs_v1_EvictClientRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_EvictClientResponse__Output>): grpc.ClientUnaryCall;
  evictClient(argument: _stripefs_v1_EvictClientRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_EvictClientResponse__Output>): grpc.ClientUnaryCall;
  evictClient(argument: _stripefs_v1_EvictClientRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_EvictClientResponse__Output>): grpc.ClientUnaryCall;
  evictClient(argument: _stripefs_v1_EvictClientRequest, callback: grpc.requestCallback<_stripefs_v1_EvictClientResponse__Output>): grpc.ClientUnaryCall;
  
  GetMap(argument: _stripefs_v1_GetMapRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_GetMapResponse__Output>): grpc.ClientUnaryCall;
  GetMap(argument: _stripefs_v1_GetMapRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_GetMapResponse__Output>): grpc.ClientUnaryCall;
  GetMap(argument: _stripefs_v1_GetMapRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_GetMapResponse__Output>): grpc.ClientUnaryCall;
  GetMap(argument: _stripefs_v1_GetMapRequest, callback: grpc.requestCallback<_stripefs_v1_GetMapResponse__Output>): grpc.ClientUnaryCall;
  getMap(argument: _stripefs_v1_GetMapRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_GetMapResponse__Output>): grpc.ClientUnaryCall;
  getMap(argument: _stripefs_v1_GetMapRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_GetMapResponse__Output>): grpc.ClientUnaryCall;
  getMap(argument: _stripefs_v1_GetMapRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_GetMapResponse__Output>): grpc.ClientUnaryCall;
  getMap(argument: _stripefs_v1_GetMapRequest, callback: grpc.requestCallback<_stripefs_v1_GetMapResponse__Output>): grpc.ClientUnaryCall;
  
  GetPgHolders(argument: _stripefs_v1_GetPgHoldersRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_GetPgHoldersResponse__Output>): grpc.ClientUnaryCall;
  GetPgHolders(argument: _stripefs_v1_GetPgHoldersRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_GetPgHoldersResponse__Output>): grpc.ClientUnaryCall;
  GetPgHolders(argument: _stripefs_v1_GetPgHoldersRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_GetPgHoldersResponse__Output>): grpc.ClientUnaryCall;
  GetPgHolders(argument: _stripefs_v1_GetPgHoldersRequest, callback: grpc.requestCallback<_stripefs_v1_GetPgHoldersResponse__Output>): grpc.ClientUnaryCall;
  getPgHolders(argument: _stripefs_v1_GetPgHoldersRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_GetPgHoldersResponse__Output>): grpc.ClientUnaryCall;
  getPgHolders(argument: _stripefs_v1_GetPgHoldersRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_GetPgHoldersResponse__Output>): grpc.ClientUnaryCall;
  getPgHolders(argument: _stripefs_v1_GetPgHoldersRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_GetPgHoldersResponse__Output>): grpc.ClientUnaryCall;
  getPgHolders(argument: _stripefs_v1_GetPgHoldersRequest, callback: grpc.requestCallback<_stripefs_v1_GetPgHoldersResponse__Output>): grpc.ClientUnaryCall;
  
  GetTickets(argument: _stripefs_v1_GetTicketsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_GetTicketsResponse__Output>): grpc.ClientUnaryCall;
  GetTickets(argument: _stripefs_v1_GetTicketsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_GetTicketsResponse__Output>): grpc.ClientUnaryCall;
  GetTickets(argument: _stripefs_v1_GetTicketsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_GetTicketsResponse__Output>): grpc.ClientUnaryCall;
  GetTickets(argument: _stripefs_v1_GetTicketsRequest, callback: grpc.requestCallback<_stripefs_v1_GetTicketsResponse__Output>): grpc.ClientUnaryCall;
  getTickets(argument: _stripefs_v1_GetTicketsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_GetTicketsResponse__Output>): grpc.ClientUnaryCall;
  getTickets(argument: _stripefs_v1_GetTicketsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_GetTicketsResponse__Output>): grpc.ClientUnaryCall;
  getTickets(argument: _stripefs_v1_GetTicketsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_GetTicketsResponse__Output>): grpc.ClientUnaryCall;
  getTickets(argument: _stripefs_v1_GetTicketsRequest, callback: grpc.requestCallback<_stripefs_v1_GetTicketsResponse__Output>): grpc.ClientUnaryCall;
  
  GetXattr(argument: _stripefs_v1_GetXattrRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_GetXattrResponse__Output>): grpc.ClientUnaryCall;
  GetXattr(argument: _stripefs_v1_GetXattrRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_GetXattrResponse__Output>): grpc.ClientUnaryCall;
  GetXattr(argument: _stripefs_v1_GetXattrRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_GetXattrResponse__Output>): grpc.ClientUnaryCall;
  GetXattr(argument: _stripefs_v1_GetXattrRequest, callback: grpc.requestCallback<_stripefs_v1_GetXattrResponse__Output>): grpc.ClientUnaryCall;
  getXattr(argument: _stripefs_v1_GetXattrRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_GetXattrResponse__Output>): grpc.ClientUnaryCall;
  getXattr(argument: _stripefs_v1_GetXattrRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_GetXattrResponse__Output>): grpc.ClientUnaryCall;
  getXattr(argument: _stripefs_v1_GetXattrRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_GetXattrResponse__Output>): grpc.ClientUnaryCall;
  getXattr(argument: _stripefs_v1_GetXattrRequest, callback: grpc.requestCallback<_stripefs_v1_GetXattrResponse__Output>): grpc.ClientUnaryCall;
  
  Heartbeat(argument: _stripefs_v1_HeartbeatRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_HeartbeatResponse__Output>): grpc.ClientUnaryCall;
  Heartbeat(argument: _stripefs_v1_HeartbeatRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_HeartbeatResponse__Output>): grpc.ClientUnaryCall;
  Heartbeat(argument: _stripefs_v1_HeartbeatRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_HeartbeatResponse__Output>): grpc.ClientUnaryCall;
  Heartbeat(argument: _stripefs_v1_HeartbeatRequest, callback: grpc.requestCallback<_stripefs_v1_HeartbeatResponse__Output>): grpc.ClientUnaryCall;
  heartbeat(argument: _stripefs_v1_HeartbeatRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_HeartbeatResponse__Output>): grpc.ClientUnaryCall;
  heartbeat(argument: _stripefs_v1_HeartbeatRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_HeartbeatResponse__Output>): grpc.ClientUnaryCall;
  heartbeat(argument: _stripefs_v1_HeartbeatRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_HeartbeatResponse__Output>): grpc.ClientUnaryCall;
  heartbeat(argument: _stripefs_v1_HeartbeatRequest, callback: grpc.requestCallback<_stripefs_v1_HeartbeatResponse__Output>): grpc.ClientUnaryCall;
  
  ListClients(argument: _stripefs_v1_ListClientsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_ListClientsResponse__Output>): grpc.ClientUnaryCall;
  ListClients(argument: _stripefs_v1_ListClientsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_ListClientsResponse__Output>): grpc.ClientUnaryCall;
  ListClients(argument: _stripefs_v1_ListClientsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_ListClientsResponse__Output>): grpc.ClientUnaryCall;
  ListClients(argument: _stripefs_v1_ListClientsRequest, callback: grpc.requestCallback<_stripefs_v1_ListClientsResponse__Output>): grpc.ClientUnaryCall;
  listClients(argument: _stripefs_v1_ListClientsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_ListClientsResponse__Output>): grpc.ClientUnaryCall;
  listClients(argument: _stripefs_v1_ListClientsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_ListClientsResponse__Output>): grpc.ClientUnaryCall;
  listClients(argument: _stripefs_v1_ListClientsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_ListClientsResponse__Output>): grpc.ClientUnaryCall;
  listClients(argument: _stripefs_v1_ListClientsRequest, callback: grpc.requestCallback<_stripefs_v1_ListClientsResponse__Output>): grpc.ClientUnaryCall;
  
  ListXattrs(argument: _stripefs_v1_ListXattrsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_ListXattrsResponse__Output>): grpc.ClientUnaryCall;
  ListXattrs(argument: _stripefs_v1_ListXattrsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_ListXattrsResponse__Output>): grpc.ClientUnaryCall;
  ListXattrs(argument: _stripefs_v1_ListXattrsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_ListXattrsResponse__Output>): grpc.ClientUnaryCall;
  ListXattrs(argument: _stripefs_v1_ListXattrsRequest, callback: grpc.requestCallback<_stripefs_v1_ListXattrsResponse__Output>): grpc.ClientUnaryCall;
  listXattrs(argument: _stripefs_v1_ListXattrsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_ListXattrsResponse__Output>): grpc.ClientUnaryCall;
  listXattrs(argument: _stripefs_v1_ListXattrsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_ListXattrsResponse__Output>): grpc.ClientUnaryCall;
  listXattrs(argument: _stripefs_v1_ListXattrsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_ListXattrsResponse__Output>): grpc.ClientUnaryCall;
  listXattrs(argument: _stripefs_v1_ListXattrsRequest, callback: grpc.requestCallback<_stripefs_v1_ListXattrsResponse__Output>): grpc.ClientUnaryCall;
  
  Mkdir(argument: _stripefs_v1_MkdirRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_MkdirResponse__Output>): grpc.ClientUnaryCall;
  Mkdir(argument: _stripefs_v1_MkdirRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_MkdirResponse__Output>): grpc.ClientUnaryCall;
  Mkdir(argument: _stripefs_v1_MkdirRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_MkdirResponse__Output>): grpc.ClientUnaryCall;
  Mkdir(argument: _stripefs_v1_MkdirRequest, callback: grpc.requestCallback<_stripefs_v1_MkdirResponse__Output>): grpc.ClientUnaryCall;
  mkdir(argument: _stripefs_v1_MkdirRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_MkdirResponse__Output>): grpc.ClientUnaryCall;
  mkdir(argument: _stripefs_v1_MkdirRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_MkdirResponse__Output>): grpc.ClientUnaryCall;
  mkdir(argument: _stripefs_v1_MkdirRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_MkdirResponse__Output>): grpc.ClientUnaryCall;
  mkdir(argument: _stripefs_v1_MkdirRequest, callback: grpc.requestCallback<_stripefs_v1_MkdirResponse__Output>): grpc.ClientUnaryCall;
  
  Open(argument: _stripefs_v1_OpenRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_OpenResponse__Output>): grpc.ClientUnaryCall;
  Open(argument: _stripefs_v1_OpenRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_OpenResponse__Output>): grpc.ClientUnaryCall;
  Open(argument: _stripefs_v1_OpenRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_OpenResponse__Output>): grpc.ClientUnaryCall;
  Open(argument: _stripefs_v1_OpenRequest, callback: grpc.requestCallback<_stripefs_v1_OpenResponse__Output>): grpc.ClientUnaryCall;
  open(argument: _stripefs_v1_OpenRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_OpenResponse__Output>): grpc.ClientUnaryCall;
  open(argument: _stripefs_v1_OpenRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_OpenResponse__Output>): grpc.ClientUnaryCall;
  open(argument: _stripefs_v1_OpenRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_OpenResponse__Output>): grpc.ClientUnaryCall;
  open(argument: _stripefs_v1_OpenRequest, callback: grpc.requestCallback<_stripefs_v1_OpenResponse__Output>): grpc.ClientUnaryCall;
  
  OpenMany(argument: _stripefs_v1_OpenManyRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_OpenManyResponse__Output>): grpc.ClientUnaryCall;
  OpenMany(argument: _stripefs_v1_OpenManyRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_OpenManyResponse__Output>): grpc.ClientUnaryCall;
  OpenMany(argument: _stripefs_v1_OpenManyRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_OpenManyResponse__Output>): grpc.ClientUnaryCall;
  OpenMany(argument: _stripefs_v1_OpenManyRequest, callback: grpc.requestCallback<_stripefs_v1_OpenManyResponse__Output>): grpc.ClientUnaryCall;
  openMany(argument: _stripefs_v1_OpenManyRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_OpenManyResponse__Output>): grpc.ClientUnaryCall;
  openMany(argument: _stripefs_v1_OpenManyRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_OpenManyResponse__Output>): grpc.ClientUnaryCall;
  openMany(argument: _stripefs_v1_OpenManyRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_OpenManyResponse__Output>): grpc.ClientUnaryCall;
  openMany(argument: _stripefs_v1_OpenManyRequest, callback: grpc.requestCallback<_stripefs_v1_OpenManyResponse__Output>): grpc.ClientUnaryCall;
  
  ReadAudit(argument: _stripefs_v1_ReadAuditRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_ReadAuditResponse__Output>): grpc.ClientUnaryCall;
  ReadAudit(argument: _stripefs_v1_ReadAuditRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_ReadAuditResponse__Output>): grpc.ClientUnaryCall;
  ReadAudit(argument: _stripefs_v1_ReadAuditRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_ReadAuditResponse__Output>): grpc.ClientUnaryCall;
  ReadAudit(argument: _stripefs_v1_ReadAuditRequest, callback: grpc.requestCallback<_stripefs_v1_ReadAuditResponse__Output>): grpc.ClientUnaryCall;
  readAudit(argument: _stripefs_v1_ReadAuditRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_ReadAuditResponse__Output>): grpc.ClientUnaryCall;
  readAudit(argument: _stripefs_v1_ReadAuditRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_ReadAuditResponse__Output>): grpc.ClientUnaryCall;
  readAudit(argument: _stripefs_v1_ReadAuditRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_ReadAuditResponse__Output>): grpc.ClientUnaryCall;
  readAudit(argument: _stripefs_v1_ReadAuditRequest, callback: grpc.requestCallback<_stripefs_v1_ReadAuditResponse__Output>): grpc.ClientUnaryCall;
  
  Readdir(argument: _stripefs_v1_ReaddirRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_ReaddirResponse__Output>): grpc.ClientUnaryCall;
  Readdir(argument: _stripefs_v1_ReaddirRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_ReaddirResponse__Output>): grpc.ClientUnaryCall;
  Readdir(argument: _stripefs_v1_ReaddirRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_ReaddirResponse__Output>): grpc.ClientUnaryCall;
  Readdir(argument: _stripefs_v1_ReaddirRequest, callback: grpc.requestCallback<_stripefs_v1_ReaddirResponse__Output>): grpc.ClientUnaryCall;
  readdir(argument: _stripefs_v1_ReaddirRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_ReaddirResponse__Output>): grpc.ClientUnaryCall;
  readdir(argument: _stripefs_v1_ReaddirRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_ReaddirResponse__Output>): grpc.ClientUnaryCall;
  readdir(argument: _stripefs_v1_ReaddirRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_ReaddirResponse__Output>): grpc.ClientUnaryCall;
  readdir(argument: _stripefs_v1_ReaddirRequest, callback: grpc.requestCallback<_stripefs_v1_ReaddirResponse__Output>): grpc.ClientUnaryCall;
  
  Readlink(argument: _stripefs_v1_ReadlinkRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_ReadlinkResponse__Output>): grpc.ClientUnaryCall;
  Readlink(argument: _stripefs_v1_ReadlinkRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_ReadlinkResponse__Output>): grpc.ClientUnaryCall;
  Readlink(argument: _stripefs_v1_ReadlinkRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_ReadlinkResponse__Output>): grpc.ClientUnaryCall;
  Readlink(argument: _stripefs_v1_ReadlinkRequest, callback: grpc.requestCallback<_stripefs_v1_ReadlinkResponse__Output>): grpc.ClientUnaryCall;
  readlink(argument: _stripefs_v1_ReadlinkRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_ReadlinkResponse__Output>): grpc.ClientUnaryCall;
  readlink(argument: _stripefs_v1_ReadlinkRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_ReadlinkResponse__Output>): grpc.ClientUnaryCall;
  readlink(argument: _stripefs_v1_ReadlinkRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_ReadlinkResponse__Output>): grpc.ClientUnaryCall;
  readlink(argument: _stripefs_v1_ReadlinkRequest, callback: grpc.requestCallback<_stripefs_v1_ReadlinkResponse__Output>): grpc.ClientUnaryCall;
  
  RegisterOss(argument: _stripefs_v1_RegisterOssRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_RegisterOssResponse__Output>): grpc.ClientUnaryCall;
  RegisterOss(argument: _stripefs_v1_RegisterOssRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_RegisterOssResponse__Output>): grpc.ClientUnaryCall;
  RegisterOss(argument: _stripefs_v1_RegisterOssRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_RegisterOssResponse__Output>): grpc.ClientUnaryCall;
  RegisterOss(argument: _stripefs_v1_RegisterOssRequest, callback: grpc.requestCallback<_stripefs_v1_RegisterOssResponse__Output>): grpc.ClientUnaryCall;
  registerOss(argument: _stripefs_v1_RegisterOssRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_RegisterOssResponse__Output>): grpc.ClientUnaryCall;
  registerOss(argument: _stripefs_v1_RegisterOssRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_RegisterOssResponse__Output>): grpc.ClientUnaryCall;
  registerOss(argument: _stripefs_v1_RegisterOssRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_RegisterOssResponse__Output>): grpc.ClientUnaryCall;
  registerOss(argument: _stripefs_v1_RegisterOssRequest, callback: grpc.requestCallback<_stripefs_v1_RegisterOssResponse__Output>): grpc.ClientUnaryCall;
  
  RemoveXattr(argument: _stripefs_v1_RemoveXattrRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_RemoveXattrResponse__Output>): grpc.ClientUnaryCall;
  RemoveXattr(argument: _stripefs_v1_RemoveXattrRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_RemoveXattrResponse__Output>): grpc.ClientUnaryCall;
  RemoveXattr(argument: _stripefs_v1_RemoveXattrRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_RemoveXattrResponse__Output>): grpc.ClientUnaryCall;
  RemoveXattr(argument: _stripefs_v1_RemoveXattrRequest, callback: grpc.requestCallback<_stripefs_v1_RemoveXattrResponse__Output>): grpc.ClientUnaryCall;
  removeXattr(argument: _stripefs_v1_RemoveXattrRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_RemoveXattrResponse__Output>): grpc.ClientUnaryCall;
  removeXattr(argument: _stripefs_v1_RemoveXattrRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_RemoveXattrResponse__Output>): grpc.ClientUnaryCall;
  removeXattr(argument: _stripefs_v1_RemoveXattrRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_RemoveXattrResponse__Output>): grpc.ClientUnaryCall;
  removeXattr(argument: _stripefs_v1_RemoveXattrRequest, callback: grpc.requestCallback<_stripefs_v1_RemoveXattrResponse__Output>): grpc.ClientUnaryCall;
  
  Rename(argument: _stripefs_v1_RenameRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_RenameResponse__Output>): grpc.ClientUnaryCall;
  Rename(argument: _stripefs_v1_RenameRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_RenameResponse__Output>): grpc.ClientUnaryCall;
  Rename(argument: _stripefs_v1_RenameRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_RenameResponse__Output>): grpc.ClientUnaryCall;
  Rename(argument: _stripefs_v1_RenameRequest, callback: grpc.requestCallback<_stripefs_v1_RenameResponse__Output>): grpc.ClientUnaryCall;
  rename(argument: _stripefs_v1_RenameRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_RenameResponse__Output>): grpc.ClientUnaryCall;
  rename(argument: _stripefs_v1_RenameRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_RenameResponse__Output>): grpc.ClientUnaryCall;
  rename(argument: _stripefs_v1_RenameRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_RenameResponse__Output>): grpc.ClientUnaryCall;
  rename(argument: _stripefs_v1_RenameRequest, callback: grpc.requestCallback<_stripefs_v1_RenameResponse__Output>): grpc.ClientUnaryCall;
  
  ReportAudit(argument: _stripefs_v1_ReportAuditRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_ReportAuditResponse__Output>): grpc.ClientUnaryCall;
  ReportAudit(argument: _stripefs_v1_ReportAuditRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_ReportAuditResponse__Output>): grpc.ClientUnaryCall;
  ReportAudit(argument: _stripefs_v1_ReportAuditRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_ReportAuditResponse__Output>): grpc.ClientUnaryCall;
  ReportAudit(argument: _stripefs_v1_ReportAuditRequest, callback: grpc.requestCallback<_stripefs_v1_ReportAuditResponse__Output>): grpc.ClientUnaryCall;
  reportAudit(argument: _stripefs_v1_ReportAuditRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_ReportAuditResponse__Output>): grpc.ClientUnaryCall;
  reportAudit(argument: _stripefs_v1_ReportAuditRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_ReportAuditResponse__Output>): grpc.ClientUnaryCall;
  reportAudit(argument: _stripefs_v1_ReportAuditRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_ReportAuditResponse__Output>): grpc.ClientUnaryCall;
  reportAudit(argument: _stripefs_v1_ReportAuditRequest, callback: grpc.requestCallback<_stripefs_v1_ReportAuditResponse__Output>): grpc.ClientUnaryCall;
  
  ReportBadChunk(argument: _stripefs_v1_ReportBadChunkRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_ReportBadChunkResponse__Output>): grpc.ClientUnaryCall;
  ReportBadChunk(argument: _stripefs_v1_ReportBadChunkRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_ReportBadChunkResponse__Output>): grpc.ClientUnaryCall;
  ReportBadChunk(argument: _stripefs_v1_ReportBadChunkRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_ReportBadChunkResponse__Output>): grpc.ClientUnaryCall;
  ReportBadChunk(argument: _stripefs_v1_ReportBadChunkRequest, callback: grpc.requestCallback<_stripefs_v1_ReportBadChunkResponse__Output>): grpc.ClientUnaryCall;
  reportBadChunk(argument: _stripefs_v1_ReportBadChunkRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_ReportBadChunkResponse__Output>): grpc.ClientUnaryCall;
  reportBadChunk(argument: _stripefs_v1_ReportBadChunkRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_ReportBadChunkResponse__Output>): grpc.ClientUnaryCall;
  reportBadChunk(argument: _stripefs_v1_ReportBadChunkRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_ReportBadChunkResponse__Output>): grpc.ClientUnaryCall;
  reportBadChunk(argument: _stripefs_v1_ReportBadChunkRequest, callback: grpc.requestCallback<_stripefs_v1_ReportBadChunkResponse__Output>): grpc.ClientUnaryCall;
  
  Rmdir(argument: _stripefs_v1_RmdirRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_RmdirResponse__Output>): grpc.ClientUnaryCall;
  Rmdir(argument: _stripefs_v1_RmdirRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_RmdirResponse__Output>): grpc.ClientUnaryCall;
  Rmdir(argument: _stripefs_v1_RmdirRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_RmdirResponse__Output>): grpc.ClientUnaryCall;
  Rmdir(argument: _stripefs_v1_RmdirRequest, callback: grpc.requestCallback<_stripefs_v1_RmdirResponse__Output>): grpc.ClientUnaryCall;
  rmdir(argument: _stripefs_v1_RmdirRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_RmdirResponse__Output>): grpc.ClientUnaryCall;
  rmdir(argument: _stripefs_v1_RmdirRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_RmdirResponse__Output>): grpc.ClientUnaryCall;
  rmdir(argument: _stripefs_v1_RmdirRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_RmdirResponse__Output>): grpc.ClientUnaryCall;
  rmdir(argument: _stripefs_v1_RmdirRequest, callback: grpc.requestCallback<_stripefs_v1_RmdirResponse__Output>): grpc.ClientUnaryCall;
  
  SetAttr(argument: _stripefs_v1_SetAttrRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_SetAttrResponse__Output>): grpc.ClientUnaryCall;
  SetAttr(argument: _stripefs_v1_SetAttrRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_SetAttrResponse__Output>): grpc.ClientUnaryCall;
  SetAttr(argument: _stripefs_v1_SetAttrRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_SetAttrResponse__Output>): grpc.ClientUnaryCall;
  SetAttr(argument: _stripefs_v1_SetAttrRequest, callback: grpc.requestCallback<_stripefs_v1_SetAttrResponse__Output>): grpc.ClientUnaryCall;
  setAttr(argument: _stripefs_v1_SetAttrRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_SetAttrResponse__Output>): grpc.ClientUnaryCall;
  setAttr(argument: _stripefs_v1_SetAttrRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_SetAttrResponse__Output>): grpc.ClientUnaryCall;
  setAttr(argument: _stripefs_v1_SetAttrRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_SetAttrResponse__Output>): grpc.ClientUnaryCall;
  setAttr(argument: _stripefs_v1_SetAttrRequest, callback: grpc.requestCallback<_stripefs_v1_SetAttrResponse__Output>): grpc.ClientUnaryCall;
  
  SetLayout(argument: _stripefs_v1_SetLayoutRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_SetLayoutResponse__Output>): grpc.ClientUnaryCall;
  SetLayout(argument: _stripefs_v1_SetLayoutRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_SetLayoutResponse__Output>): grpc.ClientUnaryCall;
  SetLayout(argument: _stripefs_v1_SetLayoutRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_SetLayoutResponse__Output>): grpc.ClientUnaryCall;
  SetLayout(argument: _stripefs_v1_SetLayoutRequest, callback: grpc.requestCallback<_stripefs_v1_SetLayoutResponse__Output>): grpc.ClientUnaryCall;
  setLayout(argument: _stripefs_v1_SetLayoutRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_SetLayoutResponse__Output>): grpc.ClientUnaryCall;
  setLayout(argument: _stripefs_v1_SetLayoutRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_SetLayoutResponse__Output>): grpc.ClientUnaryCall;
  setLayout(argument: _stripefs_v1_SetLayoutRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_SetLayoutResponse__Output>): grpc.ClientUnaryCall;
  setLayout(argument: _stripefs_v1_SetLayoutRequest, callback: grpc.requestCallback<_stripefs_v1_SetLayoutResponse__Output>): grpc.ClientUnaryCall;
  
  SetXattr(argument: _stripefs_v1_SetXattrRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_SetXattrResponse__Output>): grpc.ClientUnaryCall;
  SetXattr(argument: _stripefs_v1_SetXattrRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_SetXattrResponse__Output>): grpc.ClientUnaryCall;
  SetXattr(argument: _stripefs_v1_SetXattrRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_SetXattrResponse__Output>): grpc.ClientUnaryCall;
  SetXattr(argument: _stripefs_v1_SetXattrRequest, callback: grpc.requestCallback<_stripefs_v1_SetXattrResponse__Output>): grpc.ClientUnaryCall;
  setXattr(argument: _stripefs_v1_SetXattrRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_SetXattrResponse__Output>): grpc.ClientUnaryCall;
  setXattr(argument: _stripefs_v1_SetXattrRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_SetXattrResponse__Output>): grpc.ClientUnaryCall;
  setXattr(argument: _stripefs_v1_SetXattrRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_SetXattrResponse__Output>): grpc.ClientUnaryCall;
  setXattr(argument: _stripefs_v1_SetXattrRequest, callback: grpc.requestCallback<_stripefs_v1_SetXattrResponse__Output>): grpc.ClientUnaryCall;
  
  Stat(argument: _stripefs_v1_StatRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_StatResponse__Output>): grpc.ClientUnaryCall;
  Stat(argument: _stripefs_v1_StatRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_StatResponse__Output>): grpc.ClientUnaryCall;
  Stat(argument: _stripefs_v1_StatRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_StatResponse__Output>): grpc.ClientUnaryCall;
  Stat(argument: _stripefs_v1_StatRequest, callback: grpc.requestCallback<_stripefs_v1_StatResponse__Output>): grpc.ClientUnaryCall;
  stat(argument: _stripefs_v1_StatRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_StatResponse__Output>): grpc.ClientUnaryCall;
  stat(argument: _stripefs_v1_StatRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_StatResponse__Output>): grpc.ClientUnaryCall;
  stat(argument: _stripefs_v1_StatRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_StatResponse__Output>): grpc.ClientUnaryCall;
  stat(argument: _stripefs_v1_StatRequest, callback: grpc.requestCallback<_stripefs_v1_StatResponse__Output>): grpc.ClientUnaryCall;
  
  StatMany(argument: _stripefs_v1_StatManyRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_StatManyResponse__Output>): grpc.ClientUnaryCall;
  StatMany(argument: _stripefs_v1_StatManyRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_StatManyResponse__Output>): grpc.ClientUnaryCall;
  StatMany(argument: _stripefs_v1_StatManyRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_StatManyResponse__Output>): grpc.ClientUnaryCall;
  StatMany(argument: _stripefs_v1_StatManyRequest, callback: grpc.requestCallback<_stripefs_v1_StatManyResponse__Output>): grpc.ClientUnaryCall;
  statMany(argument: _stripefs_v1_StatManyRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_StatManyResponse__Output>): grpc.ClientUnaryCall;
  statMany(argument: _stripefs_v1_StatManyRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_StatManyResponse__Output>): grpc.ClientUnaryCall;
  statMany(argument: _stripefs_v1_StatManyRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_StatManyResponse__Output>): grpc.ClientUnaryCall;
  statMany(argument: _stripefs_v1_StatManyRequest, callback: grpc.requestCallback<_stripefs_v1_StatManyResponse__Output>): grpc.ClientUnaryCall;
  
  Statfs(argument: _stripefs_v1_StatfsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_StatfsResponse__Output>): grpc.ClientUnaryCall;
  Statfs(argument: _stripefs_v1_StatfsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_StatfsResponse__Output>): grpc.ClientUnaryCall;
  Statfs(argument: _stripefs_v1_StatfsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_StatfsResponse__Output>): grpc.ClientUnaryCall;
  Statfs(argument: _stripefs_v1_StatfsRequest, callback: grpc.requestCallback<_stripefs_v1_StatfsResponse__Output>): grpc.ClientUnaryCall;
  statfs(argument: _stripefs_v1_StatfsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_StatfsResponse__Output>): grpc.ClientUnaryCall;
  statfs(argument: _stripefs_v1_StatfsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_StatfsResponse__Output>): grpc.ClientUnaryCall;
  statfs(argument: _stripefs_v1_StatfsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_StatfsResponse__Output>): grpc.ClientUnaryCall;
  statfs(argument: _stripefs_v1_StatfsRequest, callback: grpc.requestCallback<_stripefs_v1_StatfsResponse__Output>): grpc.ClientUnaryCall;
  
  Symlink(argument: _stripefs_v1_SymlinkRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_SymlinkResponse__Output>): grpc.ClientUnaryCall;
  Symlink(argument: _stripefs_v1_SymlinkRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_SymlinkResponse__Output>): grpc.ClientUnaryCall;
  Symlink(argument: _stripefs_v1_SymlinkRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_SymlinkResponse__Output>): grpc.ClientUnaryCall;
  Symlink(argument: _stripefs_v1_SymlinkRequest, callback: grpc.requestCallback<_stripefs_v1_SymlinkResponse__Output>): grpc.ClientUnaryCall;
  symlink(argument: _stripefs_v1_SymlinkRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_SymlinkResponse__Output>): grpc.ClientUnaryCall;
  symlink(argument: _stripefs_v1_SymlinkRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_SymlinkResponse__Output>): grpc.ClientUnaryCall;
  symlink(argument: _stripefs_v1_SymlinkRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_SymlinkResponse__Output>): grpc.ClientUnaryCall;
  symlink(argument: _stripefs_v1_SymlinkRequest, callback: grpc.requestCallback<_stripefs_v1_SymlinkResponse__Output>): grpc.ClientUnaryCall;
  
  Unlink(argument: _stripefs_v1_UnlinkRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_UnlinkResponse__Output>): grpc.ClientUnaryCall;
  Unlink(argument: _stripefs_v1_UnlinkRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_UnlinkResponse__Output>): grpc.ClientUnaryCall;
  Unlink(argument: _stripefs_v1_UnlinkRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_UnlinkResponse__Output>): grpc.ClientUnaryCall;
  Unlink(argument: _stripefs_v1_UnlinkRequest, callback: grpc.requestCallback<_stripefs_v1_UnlinkResponse__Output>): grpc.ClientUnaryCall;
  unlink(argument: _stripefs_v1_UnlinkRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_UnlinkResponse__Output>): grpc.ClientUnaryCall;
  unlink(argument: _stripefs_v1_UnlinkRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_UnlinkResponse__Output>): grpc.ClientUnaryCall;
  unlink(argument: _stripefs_v1_UnlinkRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_UnlinkResponse__Output>): grpc.ClientUnaryCall;
  unlink(argument: _stripefs_v1_UnlinkRequest, callback: grpc.requestCallback<_stripefs_v1_UnlinkResponse__Output>): grpc.ClientUnaryCall;
  
  UnlinkMany(argument: _stripefs_v1_UnlinkManyRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_UnlinkManyResponse__Output>): grpc.ClientUnaryCall;
  UnlinkMany(argument: _stripefs_v1_UnlinkManyRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_UnlinkManyResponse__Output>): grpc.ClientUnaryCall;
  UnlinkMany(argument: _stripefs_v1_UnlinkManyRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_UnlinkManyResponse__Output>): grpc.ClientUnaryCall;
  UnlinkMany(argument: _stripefs_v1_UnlinkManyRequest, callback: grpc.requestCallback<_stripefs_v1_UnlinkManyResponse__Output>): grpc.ClientUnaryCall;
  unlinkMany(argument: _stripefs_v1_UnlinkManyRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_UnlinkManyResponse__Output>): grpc.ClientUnaryCall;
  unlinkMany(argument: _stripefs_v1_UnlinkManyRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_stripefs_v1_UnlinkManyResponse__Output>): grpc.ClientUnaryCall;
  unlinkMany(argument: _stripefs_v1_UnlinkManyRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_stripefs_v1_UnlinkManyResponse__Output>): grpc.ClientUnaryCall;
  unlinkMany(argument: _stripefs_v1_UnlinkManyRequest, callback: grpc.requestCallback<_stripefs_v1_UnlinkManyResponse__Output>): grpc.ClientUnaryCall;
  
  WatchMap(argument: _stripefs_v1_WatchMapRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_stripefs_v1_WatchMapResponse__Output>;
  WatchMap(argument: _stripefs_v1_WatchMapRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_stripefs_v1_WatchMapResponse__Output>;
  watchMap(argument: _stripefs_v1_WatchMapRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_stripefs_v1_WatchMapResponse__Output>;
  watchMap(argument: _stripefs_v1_WatchMapRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_stripefs_v1_WatchMapResponse__Output>;
  
}

export interface MdsServiceHandlers extends grpc.UntypedServiceImplementation {
  AdminOst: grpc.handleUnaryCall<_stripefs_v1_AdminOstRequest__Output, _stripefs_v1_AdminOstResponse>;
  
  AuthAdd: grpc.handleUnaryCall<_stripefs_v1_AuthAddRequest__Output, _stripefs_v1_AuthAddResponse>;
  
  AuthGet: grpc.handleUnaryCall<_stripefs_v1_AuthGetRequest__Output, _stripefs_v1_AuthGetResponse>;
  
  AuthList: grpc.handleUnaryCall<_stripefs_v1_AuthListRequest__Output, _stripefs_v1_AuthListResponse>;
  
  AuthRemove: grpc.handleUnaryCall<_stripefs_v1_AuthRemoveRequest__Output, _stripefs_v1_AuthRemoveResponse>;
  
  AuthRotate: grpc.handleUnaryCall<_stripefs_v1_AuthRotateRequest__Output, _stripefs_v1_AuthRotateResponse>;
  
  AuthSetCaps: grpc.handleUnaryCall<_stripefs_v1_AuthSetCapsRequest__Output, _stripefs_v1_AuthSetCapsResponse>;
  
  AuthWhoami: grpc.handleUnaryCall<_stripefs_v1_AuthWhoamiRequest__Output, _stripefs_v1_AuthWhoamiResponse>;
  
  Commit: grpc.handleUnaryCall<_stripefs_v1_CommitRequest__Output, _stripefs_v1_CommitResponse>;
  
  CommitMany: grpc.handleUnaryCall<_stripefs_v1_CommitManyRequest__Output, _stripefs_v1_CommitManyResponse>;
  
  Create: grpc.handleUnaryCall<_stripefs_v1_CreateRequest__Output, _stripefs_v1_CreateResponse>;
  
  CreateMany: grpc.handleUnaryCall<_stripefs_v1_CreateManyRequest__Output, _stripefs_v1_CreateManyResponse>;
  
  EvictClient: grpc.handleUnaryCall<_stripefs_v1_EvictClientRequest__Output, _stripefs_v1_EvictClientResponse>;
  
  GetMap: grpc.handleUnaryCall<_stripefs_v1_GetMapRequest__Output, _stripefs_v1_GetMapResponse>;
  
  GetPgHolders: grpc.handleUnaryCall<_stripefs_v1_GetPgHoldersRequest__Output, _stripefs_v1_GetPgHoldersResponse>;
  
  GetTickets: grpc.handleUnaryCall<_stripefs_v1_GetTicketsRequest__Output, _stripefs_v1_GetTicketsResponse>;
  
  GetXattr: grpc.handleUnaryCall<_stripefs_v1_GetXattrRequest__Output, _stripefs_v1_GetXattrResponse>;
  
  Heartbeat: grpc.handleUnaryCall<_stripefs_v1_HeartbeatRequest__Output, _stripefs_v1_HeartbeatResponse>;
  
  ListClients: grpc.handleUnaryCall<_stripefs_v1_ListClientsRequest__Output, _stripefs_v1_ListClientsResponse>;
  
  ListXattrs: grpc.handleUnaryCall<_stripefs_v1_ListXattrsRequest__Output, _stripefs_v1_ListXattrsResponse>;
  
  Mkdir: grpc.handleUnaryCall<_stripefs_v1_MkdirRequest__Output, _stripefs_v1_MkdirResponse>;
  
  Open: grpc.handleUnaryCall<_stripefs_v1_OpenRequest__Output, _stripefs_v1_OpenResponse>;
  
  OpenMany: grpc.handleUnaryCall<_stripefs_v1_OpenManyRequest__Output, _stripefs_v1_OpenManyResponse>;
  
  ReadAudit: grpc.handleUnaryCall<_stripefs_v1_ReadAuditRequest__Output, _stripefs_v1_ReadAuditResponse>;
  
  Readdir: grpc.handleUnaryCall<_stripefs_v1_ReaddirRequest__Output, _stripefs_v1_ReaddirResponse>;
  
  Readlink: grpc.handleUnaryCall<_stripefs_v1_ReadlinkRequest__Output, _stripefs_v1_ReadlinkResponse>;
  
  RegisterOss: grpc.handleUnaryCall<_stripefs_v1_RegisterOssRequest__Output, _stripefs_v1_RegisterOssResponse>;
  
  RemoveXattr: grpc.handleUnaryCall<_stripefs_v1_RemoveXattrRequest__Output, _stripefs_v1_RemoveXattrResponse>;
  
  Rename: grpc.handleUnaryCall<_stripefs_v1_RenameRequest__Output, _stripefs_v1_RenameResponse>;
  
  ReportAudit: grpc.handleUnaryCall<_stripefs_v1_ReportAuditRequest__Output, _stripefs_v1_ReportAuditResponse>;
  
  ReportBadChunk: grpc.handleUnaryCall<_stripefs_v1_ReportBadChunkRequest__Output, _stripefs_v1_ReportBadChunkResponse>;
  
  Rmdir: grpc.handleUnaryCall<_stripefs_v1_RmdirRequest__Output, _stripefs_v1_RmdirResponse>;
  
  SetAttr: grpc.handleUnaryCall<_stripefs_v1_SetAttrRequest__Output, _stripefs_v1_SetAttrResponse>;
  
  SetLayout: grpc.handleUnaryCall<_stripefs_v1_SetLayoutRequest__Output, _stripefs_v1_SetLayoutResponse>;
  
  SetXattr: grpc.handleUnaryCall<_stripefs_v1_SetXattrRequest__Output, _stripefs_v1_SetXattrResponse>;
  
  Stat: grpc.handleUnaryCall<_stripefs_v1_StatRequest__Output, _stripefs_v1_StatResponse>;
  
  StatMany: grpc.handleUnaryCall<_stripefs_v1_StatManyRequest__Output, _stripefs_v1_StatManyResponse>;
  
  Statfs: grpc.handleUnaryCall<_stripefs_v1_StatfsRequest__Output, _stripefs_v1_StatfsResponse>;
  
  Symlink: grpc.handleUnaryCall<_stripefs_v1_SymlinkRequest__Output, _stripefs_v1_SymlinkResponse>;
  
  Unlink: grpc.handleUnaryCall<_stripefs_v1_UnlinkRequest__Output, _stripefs_v1_UnlinkResponse>;
  
  UnlinkMany: grpc.handleUnaryCall<_stripefs_v1_UnlinkManyRequest__Output, _stripefs_v1_UnlinkManyResponse>;
  
  WatchMap: grpc.handleServerStreamingCall<_stripefs_v1_WatchMapRequest__Output, _stripefs_v1_WatchMapResponse>;
  
}

export interface MdsServiceDefinition extends grpc.ServiceDefinition {
  AdminOst: MethodDefinition<_stripefs_v1_AdminOstRequest, _stripefs_v1_AdminOstResponse, _stripefs_v1_AdminOstRequest__Output, _stripefs_v1_AdminOstResponse__Output>
  AuthAdd: MethodDefinition<_stripefs_v1_AuthAddRequest, _stripefs_v1_AuthAddResponse, _stripefs_v1_AuthAddRequest__Output, _stripefs_v1_AuthAddResponse__Output>
  AuthGet: MethodDefinition<_stripefs_v1_AuthGetRequest, _stripefs_v1_AuthGetResponse, _stripefs_v1_AuthGetRequest__Output, _stripefs_v1_AuthGetResponse__Output>
  AuthList: MethodDefinition<_stripefs_v1_AuthListRequest, _stripefs_v1_AuthListResponse, _stripefs_v1_AuthListRequest__Output, _stripefs_v1_AuthListResponse__Output>
  AuthRemove: MethodDefinition<_stripefs_v1_AuthRemoveRequest, _stripefs_v1_AuthRemoveResponse, _stripefs_v1_AuthRemoveRequest__Output, _stripefs_v1_AuthRemoveResponse__Output>
  AuthRotate: MethodDefinition<_stripefs_v1_AuthRotateRequest, _stripefs_v1_AuthRotateResponse, _stripefs_v1_AuthRotateRequest__Output, _stripefs_v1_AuthRotateResponse__Output>
  AuthSetCaps: MethodDefinition<_stripefs_v1_AuthSetCapsRequest, _stripefs_v1_AuthSetCapsResponse, _stripefs_v1_AuthSetCapsRequest__Output, _stripefs_v1_AuthSetCapsResponse__Output>
  AuthWhoami: MethodDefinition<_stripefs_v1_AuthWhoamiRequest, _stripefs_v1_AuthWhoamiResponse, _stripefs_v1_AuthWhoamiRequest__Output, _stripefs_v1_AuthWhoamiResponse__Output>
  Commit: MethodDefinition<_stripefs_v1_CommitRequest, _stripefs_v1_CommitResponse, _stripefs_v1_CommitRequest__Output, _stripefs_v1_CommitResponse__Output>
  CommitMany: MethodDefinition<_stripefs_v1_CommitManyRequest, _stripefs_v1_CommitManyResponse, _stripefs_v1_CommitManyRequest__Output, _stripefs_v1_CommitManyResponse__Output>
  Create: MethodDefinition<_stripefs_v1_CreateRequest, _stripefs_v1_CreateResponse, _stripefs_v1_CreateRequest__Output, _stripefs_v1_CreateResponse__Output>
  CreateMany: MethodDefinition<_stripefs_v1_CreateManyRequest, _stripefs_v1_CreateManyResponse, _stripefs_v1_CreateManyRequest__Output, _stripefs_v1_CreateManyResponse__Output>
  EvictClient: MethodDefinition<_stripefs_v1_EvictClientRequest, _stripefs_v1_EvictClientResponse, _stripefs_v1_EvictClientRequest__Output, _stripefs_v1_EvictClientResponse__Output>
  GetMap: MethodDefinition<_stripefs_v1_GetMapRequest, _stripefs_v1_GetMapResponse, _stripefs_v1_GetMapRequest__Output, _stripefs_v1_GetMapResponse__Output>
  GetPgHolders: MethodDefinition<_stripefs_v1_GetPgHoldersRequest, _stripefs_v1_GetPgHoldersResponse, _stripefs_v1_GetPgHoldersRequest__Output, _stripefs_v1_GetPgHoldersResponse__Output>
  GetTickets: MethodDefinition<_stripefs_v1_GetTicketsRequest, _stripefs_v1_GetTicketsResponse, _stripefs_v1_GetTicketsRequest__Output, _stripefs_v1_GetTicketsResponse__Output>
  GetXattr: MethodDefinition<_stripefs_v1_GetXattrRequest, _stripefs_v1_GetXattrResponse, _stripefs_v1_GetXattrRequest__Output, _stripefs_v1_GetXattrResponse__Output>
  Heartbeat: MethodDefinition<_stripefs_v1_HeartbeatRequest, _stripefs_v1_HeartbeatResponse, _stripefs_v1_HeartbeatRequest__Output, _stripefs_v1_HeartbeatResponse__Output>
  ListClients: MethodDefinition<_stripefs_v1_ListClientsRequest, _stripefs_v1_ListClientsResponse, _stripefs_v1_ListClientsRequest__Output, _stripefs_v1_ListClientsResponse__Output>
  ListXattrs: MethodDefinition<_stripefs_v1_ListXattrsRequest, _stripefs_v1_ListXattrsResponse, _stripefs_v1_ListXattrsRequest__Output, _stripefs_v1_ListXattrsResponse__Output>
  Mkdir: MethodDefinition<_stripefs_v1_MkdirRequest, _stripefs_v1_MkdirResponse, _stripefs_v1_MkdirRequest__Output, _stripefs_v1_MkdirResponse__Output>
  Open: MethodDefinition<_stripefs_v1_OpenRequest, _stripefs_v1_OpenResponse, _stripefs_v1_OpenRequest__Output, _stripefs_v1_OpenResponse__Output>
  OpenMany: MethodDefinition<_stripefs_v1_OpenManyRequest, _stripefs_v1_OpenManyResponse, _stripefs_v1_OpenManyRequest__Output, _stripefs_v1_OpenManyResponse__Output>
  ReadAudit: MethodDefinition<_stripefs_v1_ReadAuditRequest, _stripefs_v1_ReadAuditResponse, _stripefs_v1_ReadAuditRequest__Output, _stripefs_v1_ReadAuditResponse__Output>
  Readdir: MethodDefinition<_stripefs_v1_ReaddirRequest, _stripefs_v1_ReaddirResponse, _stripefs_v1_ReaddirRequest__Output, _stripefs_v1_ReaddirResponse__Output>
  Readlink: MethodDefinition<_stripefs_v1_ReadlinkRequest, _stripefs_v1_ReadlinkResponse, _stripefs_v1_ReadlinkRequest__Output, _stripefs_v1_ReadlinkResponse__Output>
  RegisterOss: MethodDefinition<_stripefs_v1_RegisterOssRequest, _stripefs_v1_RegisterOssResponse, _stripefs_v1_RegisterOssRequest__Output, _stripefs_v1_RegisterOssResponse__Output>
  RemoveXattr: MethodDefinition<_stripefs_v1_RemoveXattrRequest, _stripefs_v1_RemoveXattrResponse, _stripefs_v1_RemoveXattrRequest__Output, _stripefs_v1_RemoveXattrResponse__Output>
  Rename: MethodDefinition<_stripefs_v1_RenameRequest, _stripefs_v1_RenameResponse, _stripefs_v1_RenameRequest__Output, _stripefs_v1_RenameResponse__Output>
  ReportAudit: MethodDefinition<_stripefs_v1_ReportAuditRequest, _stripefs_v1_ReportAuditResponse, _stripefs_v1_ReportAuditRequest__Output, _stripefs_v1_ReportAuditResponse__Output>
  ReportBadChunk: MethodDefinition<_stripefs_v1_ReportBadChunkRequest, _stripefs_v1_ReportBadChunkResponse, _stripefs_v1_ReportBadChunkRequest__Output, _stripefs_v1_ReportBadChunkResponse__Output>
  Rmdir: MethodDefinition<_stripefs_v1_RmdirRequest, _stripefs_v1_RmdirResponse, _stripefs_v1_RmdirRequest__Output, _stripefs_v1_RmdirResponse__Output>
  SetAttr: MethodDefinition<_stripefs_v1_SetAttrRequest, _stripefs_v1_SetAttrResponse, _stripefs_v1_SetAttrRequest__Output, _stripefs_v1_SetAttrResponse__Output>
  SetLayout: MethodDefinition<_stripefs_v1_SetLayoutRequest, _stripefs_v1_SetLayoutResponse, _stripefs_v1_SetLayoutRequest__Output, _stripefs_v1_SetLayoutResponse__Output>
  SetXattr: MethodDefinition<_stripefs_v1_SetXattrRequest, _stripefs_v1_SetXattrResponse, _stripefs_v1_SetXattrRequest__Output, _stripefs_v1_SetXattrResponse__Output>
  Stat: MethodDefinition<_stripefs_v1_StatRequest, _stripefs_v1_StatResponse, _stripefs_v1_StatRequest__Output, _stripefs_v1_StatResponse__Output>
  StatMany: MethodDefinition<_stripefs_v1_StatManyRequest, _stripefs_v1_StatManyResponse, _stripefs_v1_StatManyRequest__Output, _stripefs_v1_StatManyResponse__Output>
  Statfs: MethodDefinition<_stripefs_v1_StatfsRequest, _stripefs_v1_StatfsResponse, _stripefs_v1_StatfsRequest__Output, _stripefs_v1_StatfsResponse__Output>
  Symlink: MethodDefinition<_stripefs_v1_SymlinkRequest, _stripefs_v1_SymlinkResponse, _stripefs_v1_SymlinkRequest__Output, _stripefs_v1_SymlinkResponse__Output>
  Unlink: MethodDefinition<_stripefs_v1_UnlinkRequest, _stripefs_v1_UnlinkResponse, _stripefs_v1_UnlinkRequest__Output, _stripefs_v1_UnlinkResponse__Output>
  UnlinkMany: MethodDefinition<_stripefs_v1_UnlinkManyRequest, _stripefs_v1_UnlinkManyResponse, _stripefs_v1_UnlinkManyRequest__Output, _stripefs_v1_UnlinkManyResponse__Output>
  WatchMap: MethodDefinition<_stripefs_v1_WatchMapRequest, _stripefs_v1_WatchMapResponse, _stripefs_v1_WatchMapRequest__Output, _stripefs_v1_WatchMapResponse__Output>
}
