import type * as grpc from '@grpc/grpc-js';
import type { EnumTypeDefinition, MessageTypeDefinition } from '@grpc/proto-loader';

import type { AdminKey as _stripefs_v1_AdminKey, AdminKey__Output as _stripefs_v1_AdminKey__Output } from './stripefs/v1/AdminKey.js';
import type { AdminOstRequest as _stripefs_v1_AdminOstRequest, AdminOstRequest__Output as _stripefs_v1_AdminOstRequest__Output } from './stripefs/v1/AdminOstRequest.js';
import type { AdminOstResponse as _stripefs_v1_AdminOstResponse, AdminOstResponse__Output as _stripefs_v1_AdminOstResponse__Output } from './stripefs/v1/AdminOstResponse.js';
import type { Attr as _stripefs_v1_Attr, Attr__Output as _stripefs_v1_Attr__Output } from './stripefs/v1/Attr.js';
import type { AuditReport as _stripefs_v1_AuditReport, AuditReport__Output as _stripefs_v1_AuditReport__Output } from './stripefs/v1/AuditReport.js';
import type { AuthAddRequest as _stripefs_v1_AuthAddRequest, AuthAddRequest__Output as _stripefs_v1_AuthAddRequest__Output } from './stripefs/v1/AuthAddRequest.js';
import type { AuthAddResponse as _stripefs_v1_AuthAddResponse, AuthAddResponse__Output as _stripefs_v1_AuthAddResponse__Output } from './stripefs/v1/AuthAddResponse.js';
import type { AuthClient as _stripefs_v1_AuthClient, AuthClient__Output as _stripefs_v1_AuthClient__Output } from './stripefs/v1/AuthClient.js';
import type { AuthGetRequest as _stripefs_v1_AuthGetRequest, AuthGetRequest__Output as _stripefs_v1_AuthGetRequest__Output } from './stripefs/v1/AuthGetRequest.js';
import type { AuthGetResponse as _stripefs_v1_AuthGetResponse, AuthGetResponse__Output as _stripefs_v1_AuthGetResponse__Output } from './stripefs/v1/AuthGetResponse.js';
import type { AuthIdentity as _stripefs_v1_AuthIdentity, AuthIdentity__Output as _stripefs_v1_AuthIdentity__Output } from './stripefs/v1/AuthIdentity.js';
import type { AuthListRequest as _stripefs_v1_AuthListRequest, AuthListRequest__Output as _stripefs_v1_AuthListRequest__Output } from './stripefs/v1/AuthListRequest.js';
import type { AuthListResponse as _stripefs_v1_AuthListResponse, AuthListResponse__Output as _stripefs_v1_AuthListResponse__Output } from './stripefs/v1/AuthListResponse.js';
import type { AuthRemoveRequest as _stripefs_v1_AuthRemoveRequest, AuthRemoveRequest__Output as _stripefs_v1_AuthRemoveRequest__Output } from './stripefs/v1/AuthRemoveRequest.js';
import type { AuthRemoveResponse as _stripefs_v1_AuthRemoveResponse, AuthRemoveResponse__Output as _stripefs_v1_AuthRemoveResponse__Output } from './stripefs/v1/AuthRemoveResponse.js';
import type { AuthRotateRequest as _stripefs_v1_AuthRotateRequest, AuthRotateRequest__Output as _stripefs_v1_AuthRotateRequest__Output } from './stripefs/v1/AuthRotateRequest.js';
import type { AuthRotateResponse as _stripefs_v1_AuthRotateResponse, AuthRotateResponse__Output as _stripefs_v1_AuthRotateResponse__Output } from './stripefs/v1/AuthRotateResponse.js';
import type { AuthSetCapsRequest as _stripefs_v1_AuthSetCapsRequest, AuthSetCapsRequest__Output as _stripefs_v1_AuthSetCapsRequest__Output } from './stripefs/v1/AuthSetCapsRequest.js';
import type { AuthSetCapsResponse as _stripefs_v1_AuthSetCapsResponse, AuthSetCapsResponse__Output as _stripefs_v1_AuthSetCapsResponse__Output } from './stripefs/v1/AuthSetCapsResponse.js';
import type { AuthWhoamiRequest as _stripefs_v1_AuthWhoamiRequest, AuthWhoamiRequest__Output as _stripefs_v1_AuthWhoamiRequest__Output } from './stripefs/v1/AuthWhoamiRequest.js';
import type { AuthWhoamiResponse as _stripefs_v1_AuthWhoamiResponse, AuthWhoamiResponse__Output as _stripefs_v1_AuthWhoamiResponse__Output } from './stripefs/v1/AuthWhoamiResponse.js';
import type { ClusterMap as _stripefs_v1_ClusterMap, ClusterMap__Output as _stripefs_v1_ClusterMap__Output } from './stripefs/v1/ClusterMap.js';
import type { CommitManyRequest as _stripefs_v1_CommitManyRequest, CommitManyRequest__Output as _stripefs_v1_CommitManyRequest__Output } from './stripefs/v1/CommitManyRequest.js';
import type { CommitManyResponse as _stripefs_v1_CommitManyResponse, CommitManyResponse__Output as _stripefs_v1_CommitManyResponse__Output } from './stripefs/v1/CommitManyResponse.js';
import type { CommitManyResult as _stripefs_v1_CommitManyResult, CommitManyResult__Output as _stripefs_v1_CommitManyResult__Output } from './stripefs/v1/CommitManyResult.js';
import type { CommitRequest as _stripefs_v1_CommitRequest, CommitRequest__Output as _stripefs_v1_CommitRequest__Output } from './stripefs/v1/CommitRequest.js';
import type { CommitResponse as _stripefs_v1_CommitResponse, CommitResponse__Output as _stripefs_v1_CommitResponse__Output } from './stripefs/v1/CommitResponse.js';
import type { CreateManyRequest as _stripefs_v1_CreateManyRequest, CreateManyRequest__Output as _stripefs_v1_CreateManyRequest__Output } from './stripefs/v1/CreateManyRequest.js';
import type { CreateManyResponse as _stripefs_v1_CreateManyResponse, CreateManyResponse__Output as _stripefs_v1_CreateManyResponse__Output } from './stripefs/v1/CreateManyResponse.js';
import type { CreateManyResult as _stripefs_v1_CreateManyResult, CreateManyResult__Output as _stripefs_v1_CreateManyResult__Output } from './stripefs/v1/CreateManyResult.js';
import type { CreateRequest as _stripefs_v1_CreateRequest, CreateRequest__Output as _stripefs_v1_CreateRequest__Output } from './stripefs/v1/CreateRequest.js';
import type { CreateResponse as _stripefs_v1_CreateResponse, CreateResponse__Output as _stripefs_v1_CreateResponse__Output } from './stripefs/v1/CreateResponse.js';
import type { DeleteObjectRequest as _stripefs_v1_DeleteObjectRequest, DeleteObjectRequest__Output as _stripefs_v1_DeleteObjectRequest__Output } from './stripefs/v1/DeleteObjectRequest.js';
import type { DeleteObjectResponse as _stripefs_v1_DeleteObjectResponse, DeleteObjectResponse__Output as _stripefs_v1_DeleteObjectResponse__Output } from './stripefs/v1/DeleteObjectResponse.js';
import type { DigestObjectsRequest as _stripefs_v1_DigestObjectsRequest, DigestObjectsRequest__Output as _stripefs_v1_DigestObjectsRequest__Output } from './stripefs/v1/DigestObjectsRequest.js';
import type { DigestObjectsResponse as _stripefs_v1_DigestObjectsResponse, DigestObjectsResponse__Output as _stripefs_v1_DigestObjectsResponse__Output } from './stripefs/v1/DigestObjectsResponse.js';
import type { DirEntry as _stripefs_v1_DirEntry, DirEntry__Output as _stripefs_v1_DirEntry__Output } from './stripefs/v1/DirEntry.js';
import type { EvictClientRequest as _stripefs_v1_EvictClientRequest, EvictClientRequest__Output as _stripefs_v1_EvictClientRequest__Output } from './stripefs/v1/EvictClientRequest.js';
import type { EvictClientResponse as _stripefs_v1_EvictClientResponse, EvictClientResponse__Output as _stripefs_v1_EvictClientResponse__Output } from './stripefs/v1/EvictClientResponse.js';
import type { FlushRequest as _stripefs_v1_FlushRequest, FlushRequest__Output as _stripefs_v1_FlushRequest__Output } from './stripefs/v1/FlushRequest.js';
import type { FlushResponse as _stripefs_v1_FlushResponse, FlushResponse__Output as _stripefs_v1_FlushResponse__Output } from './stripefs/v1/FlushResponse.js';
import type { GetMapRequest as _stripefs_v1_GetMapRequest, GetMapRequest__Output as _stripefs_v1_GetMapRequest__Output } from './stripefs/v1/GetMapRequest.js';
import type { GetMapResponse as _stripefs_v1_GetMapResponse, GetMapResponse__Output as _stripefs_v1_GetMapResponse__Output } from './stripefs/v1/GetMapResponse.js';
import type { GetPgHoldersRequest as _stripefs_v1_GetPgHoldersRequest, GetPgHoldersRequest__Output as _stripefs_v1_GetPgHoldersRequest__Output } from './stripefs/v1/GetPgHoldersRequest.js';
import type { GetPgHoldersResponse as _stripefs_v1_GetPgHoldersResponse, GetPgHoldersResponse__Output as _stripefs_v1_GetPgHoldersResponse__Output } from './stripefs/v1/GetPgHoldersResponse.js';
import type { GetTicketsRequest as _stripefs_v1_GetTicketsRequest, GetTicketsRequest__Output as _stripefs_v1_GetTicketsRequest__Output } from './stripefs/v1/GetTicketsRequest.js';
import type { GetTicketsResponse as _stripefs_v1_GetTicketsResponse, GetTicketsResponse__Output as _stripefs_v1_GetTicketsResponse__Output } from './stripefs/v1/GetTicketsResponse.js';
import type { GetXattrRequest as _stripefs_v1_GetXattrRequest, GetXattrRequest__Output as _stripefs_v1_GetXattrRequest__Output } from './stripefs/v1/GetXattrRequest.js';
import type { GetXattrResponse as _stripefs_v1_GetXattrResponse, GetXattrResponse__Output as _stripefs_v1_GetXattrResponse__Output } from './stripefs/v1/GetXattrResponse.js';
import type { HealthServiceClient as _stripefs_v1_HealthServiceClient, HealthServiceDefinition as _stripefs_v1_HealthServiceDefinition } from './stripefs/v1/HealthService.js';
import type { HeartbeatRequest as _stripefs_v1_HeartbeatRequest, HeartbeatRequest__Output as _stripefs_v1_HeartbeatRequest__Output } from './stripefs/v1/HeartbeatRequest.js';
import type { HeartbeatResponse as _stripefs_v1_HeartbeatResponse, HeartbeatResponse__Output as _stripefs_v1_HeartbeatResponse__Output } from './stripefs/v1/HeartbeatResponse.js';
import type { ItemError as _stripefs_v1_ItemError, ItemError__Output as _stripefs_v1_ItemError__Output } from './stripefs/v1/ItemError.js';
import type { JobUsage as _stripefs_v1_JobUsage, JobUsage__Output as _stripefs_v1_JobUsage__Output } from './stripefs/v1/JobUsage.js';
import type { Layout as _stripefs_v1_Layout, Layout__Output as _stripefs_v1_Layout__Output } from './stripefs/v1/Layout.js';
import type { ListClientsRequest as _stripefs_v1_ListClientsRequest, ListClientsRequest__Output as _stripefs_v1_ListClientsRequest__Output } from './stripefs/v1/ListClientsRequest.js';
import type { ListClientsResponse as _stripefs_v1_ListClientsResponse, ListClientsResponse__Output as _stripefs_v1_ListClientsResponse__Output } from './stripefs/v1/ListClientsResponse.js';
import type { ListObjectsRequest as _stripefs_v1_ListObjectsRequest, ListObjectsRequest__Output as _stripefs_v1_ListObjectsRequest__Output } from './stripefs/v1/ListObjectsRequest.js';
import type { ListObjectsResponse as _stripefs_v1_ListObjectsResponse, ListObjectsResponse__Output as _stripefs_v1_ListObjectsResponse__Output } from './stripefs/v1/ListObjectsResponse.js';
import type { ListXattrsRequest as _stripefs_v1_ListXattrsRequest, ListXattrsRequest__Output as _stripefs_v1_ListXattrsRequest__Output } from './stripefs/v1/ListXattrsRequest.js';
import type { ListXattrsResponse as _stripefs_v1_ListXattrsResponse, ListXattrsResponse__Output as _stripefs_v1_ListXattrsResponse__Output } from './stripefs/v1/ListXattrsResponse.js';
import type { ListedObject as _stripefs_v1_ListedObject, ListedObject__Output as _stripefs_v1_ListedObject__Output } from './stripefs/v1/ListedObject.js';
import type { MapBucket as _stripefs_v1_MapBucket, MapBucket__Output as _stripefs_v1_MapBucket__Output } from './stripefs/v1/MapBucket.js';
import type { MapOst as _stripefs_v1_MapOst, MapOst__Output as _stripefs_v1_MapOst__Output } from './stripefs/v1/MapOst.js';
import type { MarkStaleRequest as _stripefs_v1_MarkStaleRequest, MarkStaleRequest__Output as _stripefs_v1_MarkStaleRequest__Output } from './stripefs/v1/MarkStaleRequest.js';
import type { MarkStaleResponse as _stripefs_v1_MarkStaleResponse, MarkStaleResponse__Output as _stripefs_v1_MarkStaleResponse__Output } from './stripefs/v1/MarkStaleResponse.js';
import type { MdsServiceClient as _stripefs_v1_MdsServiceClient, MdsServiceDefinition as _stripefs_v1_MdsServiceDefinition } from './stripefs/v1/MdsService.js';
import type { MkdirRequest as _stripefs_v1_MkdirRequest, MkdirRequest__Output as _stripefs_v1_MkdirRequest__Output } from './stripefs/v1/MkdirRequest.js';
import type { MkdirResponse as _stripefs_v1_MkdirResponse, MkdirResponse__Output as _stripefs_v1_MkdirResponse__Output } from './stripefs/v1/MkdirResponse.js';
import type { ObjectDigest as _stripefs_v1_ObjectDigest, ObjectDigest__Output as _stripefs_v1_ObjectDigest__Output } from './stripefs/v1/ObjectDigest.js';
import type { ObjectRef as _stripefs_v1_ObjectRef, ObjectRef__Output as _stripefs_v1_ObjectRef__Output } from './stripefs/v1/ObjectRef.js';
import type { OpenManyRequest as _stripefs_v1_OpenManyRequest, OpenManyRequest__Output as _stripefs_v1_OpenManyRequest__Output } from './stripefs/v1/OpenManyRequest.js';
import type { OpenManyResponse as _stripefs_v1_OpenManyResponse, OpenManyResponse__Output as _stripefs_v1_OpenManyResponse__Output } from './stripefs/v1/OpenManyResponse.js';
import type { OpenManyResult as _stripefs_v1_OpenManyResult, OpenManyResult__Output as _stripefs_v1_OpenManyResult__Output } from './stripefs/v1/OpenManyResult.js';
import type { OpenRequest as _stripefs_v1_OpenRequest, OpenRequest__Output as _stripefs_v1_OpenRequest__Output } from './stripefs/v1/OpenRequest.js';
import type { OpenResponse as _stripefs_v1_OpenResponse, OpenResponse__Output as _stripefs_v1_OpenResponse__Output } from './stripefs/v1/OpenResponse.js';
import type { OssServiceClient as _stripefs_v1_OssServiceClient, OssServiceDefinition as _stripefs_v1_OssServiceDefinition } from './stripefs/v1/OssService.js';
import type { OstAnnounce as _stripefs_v1_OstAnnounce, OstAnnounce__Output as _stripefs_v1_OstAnnounce__Output } from './stripefs/v1/OstAnnounce.js';
import type { OstHealth as _stripefs_v1_OstHealth, OstHealth__Output as _stripefs_v1_OstHealth__Output } from './stripefs/v1/OstHealth.js';
import type { OstState as _stripefs_v1_OstState, OstState__Output as _stripefs_v1_OstState__Output } from './stripefs/v1/OstState.js';
import type { PgRef as _stripefs_v1_PgRef, PgRef__Output as _stripefs_v1_PgRef__Output } from './stripefs/v1/PgRef.js';
import type { PingRequest as _stripefs_v1_PingRequest, PingRequest__Output as _stripefs_v1_PingRequest__Output } from './stripefs/v1/PingRequest.js';
import type { PingResponse as _stripefs_v1_PingResponse, PingResponse__Output as _stripefs_v1_PingResponse__Output } from './stripefs/v1/PingResponse.js';
import type { Pool as _stripefs_v1_Pool, Pool__Output as _stripefs_v1_Pool__Output } from './stripefs/v1/Pool.js';
import type { ReadAuditRequest as _stripefs_v1_ReadAuditRequest, ReadAuditRequest__Output as _stripefs_v1_ReadAuditRequest__Output } from './stripefs/v1/ReadAuditRequest.js';
import type { ReadAuditResponse as _stripefs_v1_ReadAuditResponse, ReadAuditResponse__Output as _stripefs_v1_ReadAuditResponse__Output } from './stripefs/v1/ReadAuditResponse.js';
import type { ReadRangeRequest as _stripefs_v1_ReadRangeRequest, ReadRangeRequest__Output as _stripefs_v1_ReadRangeRequest__Output } from './stripefs/v1/ReadRangeRequest.js';
import type { ReadRangeResponse as _stripefs_v1_ReadRangeResponse, ReadRangeResponse__Output as _stripefs_v1_ReadRangeResponse__Output } from './stripefs/v1/ReadRangeResponse.js';
import type { ReaddirRequest as _stripefs_v1_ReaddirRequest, ReaddirRequest__Output as _stripefs_v1_ReaddirRequest__Output } from './stripefs/v1/ReaddirRequest.js';
import type { ReaddirResponse as _stripefs_v1_ReaddirResponse, ReaddirResponse__Output as _stripefs_v1_ReaddirResponse__Output } from './stripefs/v1/ReaddirResponse.js';
import type { ReadlinkRequest as _stripefs_v1_ReadlinkRequest, ReadlinkRequest__Output as _stripefs_v1_ReadlinkRequest__Output } from './stripefs/v1/ReadlinkRequest.js';
import type { ReadlinkResponse as _stripefs_v1_ReadlinkResponse, ReadlinkResponse__Output as _stripefs_v1_ReadlinkResponse__Output } from './stripefs/v1/ReadlinkResponse.js';
import type { RecoverPgRequest as _stripefs_v1_RecoverPgRequest, RecoverPgRequest__Output as _stripefs_v1_RecoverPgRequest__Output } from './stripefs/v1/RecoverPgRequest.js';
import type { RecoverPgResponse as _stripefs_v1_RecoverPgResponse, RecoverPgResponse__Output as _stripefs_v1_RecoverPgResponse__Output } from './stripefs/v1/RecoverPgResponse.js';
import type { RecoverSource as _stripefs_v1_RecoverSource, RecoverSource__Output as _stripefs_v1_RecoverSource__Output } from './stripefs/v1/RecoverSource.js';
import type { RegisterOssRequest as _stripefs_v1_RegisterOssRequest, RegisterOssRequest__Output as _stripefs_v1_RegisterOssRequest__Output } from './stripefs/v1/RegisterOssRequest.js';
import type { RegisterOssResponse as _stripefs_v1_RegisterOssResponse, RegisterOssResponse__Output as _stripefs_v1_RegisterOssResponse__Output } from './stripefs/v1/RegisterOssResponse.js';
import type { RegisteredOst as _stripefs_v1_RegisteredOst, RegisteredOst__Output as _stripefs_v1_RegisteredOst__Output } from './stripefs/v1/RegisteredOst.js';
import type { RemoveXattrRequest as _stripefs_v1_RemoveXattrRequest, RemoveXattrRequest__Output as _stripefs_v1_RemoveXattrRequest__Output } from './stripefs/v1/RemoveXattrRequest.js';
import type { RemoveXattrResponse as _stripefs_v1_RemoveXattrResponse, RemoveXattrResponse__Output as _stripefs_v1_RemoveXattrResponse__Output } from './stripefs/v1/RemoveXattrResponse.js';
import type { RenameRequest as _stripefs_v1_RenameRequest, RenameRequest__Output as _stripefs_v1_RenameRequest__Output } from './stripefs/v1/RenameRequest.js';
import type { RenameResponse as _stripefs_v1_RenameResponse, RenameResponse__Output as _stripefs_v1_RenameResponse__Output } from './stripefs/v1/RenameResponse.js';
import type { ReportAuditRequest as _stripefs_v1_ReportAuditRequest, ReportAuditRequest__Output as _stripefs_v1_ReportAuditRequest__Output } from './stripefs/v1/ReportAuditRequest.js';
import type { ReportAuditResponse as _stripefs_v1_ReportAuditResponse, ReportAuditResponse__Output as _stripefs_v1_ReportAuditResponse__Output } from './stripefs/v1/ReportAuditResponse.js';
import type { ReportBadChunkRequest as _stripefs_v1_ReportBadChunkRequest, ReportBadChunkRequest__Output as _stripefs_v1_ReportBadChunkRequest__Output } from './stripefs/v1/ReportBadChunkRequest.js';
import type { ReportBadChunkResponse as _stripefs_v1_ReportBadChunkResponse, ReportBadChunkResponse__Output as _stripefs_v1_ReportBadChunkResponse__Output } from './stripefs/v1/ReportBadChunkResponse.js';
import type { RmdirRequest as _stripefs_v1_RmdirRequest, RmdirRequest__Output as _stripefs_v1_RmdirRequest__Output } from './stripefs/v1/RmdirRequest.js';
import type { RmdirResponse as _stripefs_v1_RmdirResponse, RmdirResponse__Output as _stripefs_v1_RmdirResponse__Output } from './stripefs/v1/RmdirResponse.js';
import type { Rule as _stripefs_v1_Rule, Rule__Output as _stripefs_v1_Rule__Output } from './stripefs/v1/Rule.js';
import type { RuleStep as _stripefs_v1_RuleStep, RuleStep__Output as _stripefs_v1_RuleStep__Output } from './stripefs/v1/RuleStep.js';
import type { ScrubFinding as _stripefs_v1_ScrubFinding, ScrubFinding__Output as _stripefs_v1_ScrubFinding__Output } from './stripefs/v1/ScrubFinding.js';
import type { ScrubPgRequest as _stripefs_v1_ScrubPgRequest, ScrubPgRequest__Output as _stripefs_v1_ScrubPgRequest__Output } from './stripefs/v1/ScrubPgRequest.js';
import type { ScrubPgResponse as _stripefs_v1_ScrubPgResponse, ScrubPgResponse__Output as _stripefs_v1_ScrubPgResponse__Output } from './stripefs/v1/ScrubPgResponse.js';
import type { SetAttrRequest as _stripefs_v1_SetAttrRequest, SetAttrRequest__Output as _stripefs_v1_SetAttrRequest__Output } from './stripefs/v1/SetAttrRequest.js';
import type { SetAttrResponse as _stripefs_v1_SetAttrResponse, SetAttrResponse__Output as _stripefs_v1_SetAttrResponse__Output } from './stripefs/v1/SetAttrResponse.js';
import type { SetLayoutRequest as _stripefs_v1_SetLayoutRequest, SetLayoutRequest__Output as _stripefs_v1_SetLayoutRequest__Output } from './stripefs/v1/SetLayoutRequest.js';
import type { SetLayoutResponse as _stripefs_v1_SetLayoutResponse, SetLayoutResponse__Output as _stripefs_v1_SetLayoutResponse__Output } from './stripefs/v1/SetLayoutResponse.js';
import type { SetXattrRequest as _stripefs_v1_SetXattrRequest, SetXattrRequest__Output as _stripefs_v1_SetXattrRequest__Output } from './stripefs/v1/SetXattrRequest.js';
import type { SetXattrResponse as _stripefs_v1_SetXattrResponse, SetXattrResponse__Output as _stripefs_v1_SetXattrResponse__Output } from './stripefs/v1/SetXattrResponse.js';
import type { StaleCopies as _stripefs_v1_StaleCopies, StaleCopies__Output as _stripefs_v1_StaleCopies__Output } from './stripefs/v1/StaleCopies.js';
import type { StatManyRequest as _stripefs_v1_StatManyRequest, StatManyRequest__Output as _stripefs_v1_StatManyRequest__Output } from './stripefs/v1/StatManyRequest.js';
import type { StatManyResponse as _stripefs_v1_StatManyResponse, StatManyResponse__Output as _stripefs_v1_StatManyResponse__Output } from './stripefs/v1/StatManyResponse.js';
import type { StatManyResult as _stripefs_v1_StatManyResult, StatManyResult__Output as _stripefs_v1_StatManyResult__Output } from './stripefs/v1/StatManyResult.js';
import type { StatObjectRequest as _stripefs_v1_StatObjectRequest, StatObjectRequest__Output as _stripefs_v1_StatObjectRequest__Output } from './stripefs/v1/StatObjectRequest.js';
import type { StatObjectResponse as _stripefs_v1_StatObjectResponse, StatObjectResponse__Output as _stripefs_v1_StatObjectResponse__Output } from './stripefs/v1/StatObjectResponse.js';
import type { StatRequest as _stripefs_v1_StatRequest, StatRequest__Output as _stripefs_v1_StatRequest__Output } from './stripefs/v1/StatRequest.js';
import type { StatResponse as _stripefs_v1_StatResponse, StatResponse__Output as _stripefs_v1_StatResponse__Output } from './stripefs/v1/StatResponse.js';
import type { StatfsRequest as _stripefs_v1_StatfsRequest, StatfsRequest__Output as _stripefs_v1_StatfsRequest__Output } from './stripefs/v1/StatfsRequest.js';
import type { StatfsResponse as _stripefs_v1_StatfsResponse, StatfsResponse__Output as _stripefs_v1_StatfsResponse__Output } from './stripefs/v1/StatfsResponse.js';
import type { SymlinkRequest as _stripefs_v1_SymlinkRequest, SymlinkRequest__Output as _stripefs_v1_SymlinkRequest__Output } from './stripefs/v1/SymlinkRequest.js';
import type { SymlinkResponse as _stripefs_v1_SymlinkResponse, SymlinkResponse__Output as _stripefs_v1_SymlinkResponse__Output } from './stripefs/v1/SymlinkResponse.js';
import type { TicketKey as _stripefs_v1_TicketKey, TicketKey__Output as _stripefs_v1_TicketKey__Output } from './stripefs/v1/TicketKey.js';
import type { UnlinkManyRequest as _stripefs_v1_UnlinkManyRequest, UnlinkManyRequest__Output as _stripefs_v1_UnlinkManyRequest__Output } from './stripefs/v1/UnlinkManyRequest.js';
import type { UnlinkManyResponse as _stripefs_v1_UnlinkManyResponse, UnlinkManyResponse__Output as _stripefs_v1_UnlinkManyResponse__Output } from './stripefs/v1/UnlinkManyResponse.js';
import type { UnlinkManyResult as _stripefs_v1_UnlinkManyResult, UnlinkManyResult__Output as _stripefs_v1_UnlinkManyResult__Output } from './stripefs/v1/UnlinkManyResult.js';
import type { UnlinkRequest as _stripefs_v1_UnlinkRequest, UnlinkRequest__Output as _stripefs_v1_UnlinkRequest__Output } from './stripefs/v1/UnlinkRequest.js';
import type { UnlinkResponse as _stripefs_v1_UnlinkResponse, UnlinkResponse__Output as _stripefs_v1_UnlinkResponse__Output } from './stripefs/v1/UnlinkResponse.js';
import type { WatchMapRequest as _stripefs_v1_WatchMapRequest, WatchMapRequest__Output as _stripefs_v1_WatchMapRequest__Output } from './stripefs/v1/WatchMapRequest.js';
import type { WatchMapResponse as _stripefs_v1_WatchMapResponse, WatchMapResponse__Output as _stripefs_v1_WatchMapResponse__Output } from './stripefs/v1/WatchMapResponse.js';
import type { WriteChunkRequest as _stripefs_v1_WriteChunkRequest, WriteChunkRequest__Output as _stripefs_v1_WriteChunkRequest__Output } from './stripefs/v1/WriteChunkRequest.js';
import type { WriteChunkResponse as _stripefs_v1_WriteChunkResponse, WriteChunkResponse__Output as _stripefs_v1_WriteChunkResponse__Output } from './stripefs/v1/WriteChunkResponse.js';
import type { WriteHeader as _stripefs_v1_WriteHeader, WriteHeader__Output as _stripefs_v1_WriteHeader__Output } from './stripefs/v1/WriteHeader.js';
import type { XattrEntry as _stripefs_v1_XattrEntry, XattrEntry__Output as _stripefs_v1_XattrEntry__Output } from './stripefs/v1/XattrEntry.js';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  stripefs: {
    v1: {
      AdminKey: MessageTypeDefinition<_stripefs_v1_AdminKey, _stripefs_v1_AdminKey__Output>
      AdminOstRequest: MessageTypeDefinition<_stripefs_v1_AdminOstRequest, _stripefs_v1_AdminOstRequest__Output>
      AdminOstResponse: MessageTypeDefinition<_stripefs_v1_AdminOstResponse, _stripefs_v1_AdminOstResponse__Output>
      Attr: MessageTypeDefinition<_stripefs_v1_Attr, _stripefs_v1_Attr__Output>
      AuditReport: MessageTypeDefinition<_stripefs_v1_AuditReport, _stripefs_v1_AuditReport__Output>
      AuthAddRequest: MessageTypeDefinition<_stripefs_v1_AuthAddRequest, _stripefs_v1_AuthAddRequest__Output>
      AuthAddResponse: MessageTypeDefinition<_stripefs_v1_AuthAddResponse, _stripefs_v1_AuthAddResponse__Output>
      AuthClient: MessageTypeDefinition<_stripefs_v1_AuthClient, _stripefs_v1_AuthClient__Output>
      AuthGetRequest: MessageTypeDefinition<_stripefs_v1_AuthGetRequest, _stripefs_v1_AuthGetRequest__Output>
      AuthGetResponse: MessageTypeDefinition<_stripefs_v1_AuthGetResponse, _stripefs_v1_AuthGetResponse__Output>
      AuthIdentity: MessageTypeDefinition<_stripefs_v1_AuthIdentity, _stripefs_v1_AuthIdentity__Output>
      AuthListRequest: MessageTypeDefinition<_stripefs_v1_AuthListRequest, _stripefs_v1_AuthListRequest__Output>
      AuthListResponse: MessageTypeDefinition<_stripefs_v1_AuthListResponse, _stripefs_v1_AuthListResponse__Output>
      AuthRemoveRequest: MessageTypeDefinition<_stripefs_v1_AuthRemoveRequest, _stripefs_v1_AuthRemoveRequest__Output>
      AuthRemoveResponse: MessageTypeDefinition<_stripefs_v1_AuthRemoveResponse, _stripefs_v1_AuthRemoveResponse__Output>
      AuthRotateRequest: MessageTypeDefinition<_stripefs_v1_AuthRotateRequest, _stripefs_v1_AuthRotateRequest__Output>
      AuthRotateResponse: MessageTypeDefinition<_stripefs_v1_AuthRotateResponse, _stripefs_v1_AuthRotateResponse__Output>
      AuthSetCapsRequest: MessageTypeDefinition<_stripefs_v1_AuthSetCapsRequest, _stripefs_v1_AuthSetCapsRequest__Output>
      AuthSetCapsResponse: MessageTypeDefinition<_stripefs_v1_AuthSetCapsResponse, _stripefs_v1_AuthSetCapsResponse__Output>
      AuthWhoamiRequest: MessageTypeDefinition<_stripefs_v1_AuthWhoamiRequest, _stripefs_v1_AuthWhoamiRequest__Output>
      AuthWhoamiResponse: MessageTypeDefinition<_stripefs_v1_AuthWhoamiResponse, _stripefs_v1_AuthWhoamiResponse__Output>
      ClusterMap: MessageTypeDefinition<_stripefs_v1_ClusterMap, _stripefs_v1_ClusterMap__Output>
      CommitManyRequest: MessageTypeDefinition<_stripefs_v1_CommitManyRequest, _stripefs_v1_CommitManyRequest__Output>
      CommitManyResponse: MessageTypeDefinition<_stripefs_v1_CommitManyResponse, _stripefs_v1_CommitManyResponse__Output>
      CommitManyResult: MessageTypeDefinition<_stripefs_v1_CommitManyResult, _stripefs_v1_CommitManyResult__Output>
      CommitRequest: MessageTypeDefinition<_stripefs_v1_CommitRequest, _stripefs_v1_CommitRequest__Output>
      CommitResponse: MessageTypeDefinition<_stripefs_v1_CommitResponse, _stripefs_v1_CommitResponse__Output>
      CreateManyRequest: MessageTypeDefinition<_stripefs_v1_CreateManyRequest, _stripefs_v1_CreateManyRequest__Output>
      CreateManyResponse: MessageTypeDefinition<_stripefs_v1_CreateManyResponse, _stripefs_v1_CreateManyResponse__Output>
      CreateManyResult: MessageTypeDefinition<_stripefs_v1_CreateManyResult, _stripefs_v1_CreateManyResult__Output>
      CreateRequest: MessageTypeDefinition<_stripefs_v1_CreateRequest, _stripefs_v1_CreateRequest__Output>
      CreateResponse: MessageTypeDefinition<_stripefs_v1_CreateResponse, _stripefs_v1_CreateResponse__Output>
      DeleteObjectRequest: MessageTypeDefinition<_stripefs_v1_DeleteObjectRequest, _stripefs_v1_DeleteObjectRequest__Output>
      DeleteObjectResponse: MessageTypeDefinition<_stripefs_v1_DeleteObjectResponse, _stripefs_v1_DeleteObjectResponse__Output>
      DigestObjectsRequest: MessageTypeDefinition<_stripefs_v1_DigestObjectsRequest, _stripefs_v1_DigestObjectsRequest__Output>
      DigestObjectsResponse: MessageTypeDefinition<_stripefs_v1_DigestObjectsResponse, _stripefs_v1_DigestObjectsResponse__Output>
      DirEntry: MessageTypeDefinition<_stripefs_v1_DirEntry, _stripefs_v1_DirEntry__Output>
      EvictClientRequest: MessageTypeDefinition<_stripefs_v1_EvictClientRequest, _stripefs_v1_EvictClientRequest__Output>
      EvictClientResponse: MessageTypeDefinition<_stripefs_v1_EvictClientResponse, _stripefs_v1_EvictClientResponse__Output>
      FileType: EnumTypeDefinition
      FlushRequest: MessageTypeDefinition<_stripefs_v1_FlushRequest, _stripefs_v1_FlushRequest__Output>
      FlushResponse: MessageTypeDefinition<_stripefs_v1_FlushResponse, _stripefs_v1_FlushResponse__Output>
      GetMapRequest: MessageTypeDefinition<_stripefs_v1_GetMapRequest, _stripefs_v1_GetMapRequest__Output>
      GetMapResponse: MessageTypeDefinition<_stripefs_v1_GetMapResponse, _stripefs_v1_GetMapResponse__Output>
      GetPgHoldersRequest: MessageTypeDefinition<_stripefs_v1_GetPgHoldersRequest, _stripefs_v1_GetPgHoldersRequest__Output>
      GetPgHoldersResponse: MessageTypeDefinition<_stripefs_v1_GetPgHoldersResponse, _stripefs_v1_GetPgHoldersResponse__Output>
      GetTicketsRequest: MessageTypeDefinition<_stripefs_v1_GetTicketsRequest, _stripefs_v1_GetTicketsRequest__Output>
      GetTicketsResponse: MessageTypeDefinition<_stripefs_v1_GetTicketsResponse, _stripefs_v1_GetTicketsResponse__Output>
      GetXattrRequest: MessageTypeDefinition<_stripefs_v1_GetXattrRequest, _stripefs_v1_GetXattrRequest__Output>
      GetXattrResponse: MessageTypeDefinition<_stripefs_v1_GetXattrResponse, _stripefs_v1_GetXattrResponse__Output>
      HealthService: SubtypeConstructor<typeof grpc.Client, _stripefs_v1_HealthServiceClient> & { service: _stripefs_v1_HealthServiceDefinition }
      HeartbeatRequest: MessageTypeDefinition<_stripefs_v1_HeartbeatRequest, _stripefs_v1_HeartbeatRequest__Output>
      HeartbeatResponse: MessageTypeDefinition<_stripefs_v1_HeartbeatResponse, _stripefs_v1_HeartbeatResponse__Output>
      ItemError: MessageTypeDefinition<_stripefs_v1_ItemError, _stripefs_v1_ItemError__Output>
      JobUsage: MessageTypeDefinition<_stripefs_v1_JobUsage, _stripefs_v1_JobUsage__Output>
      Layout: MessageTypeDefinition<_stripefs_v1_Layout, _stripefs_v1_Layout__Output>
      LayoutPattern: EnumTypeDefinition
      ListClientsRequest: MessageTypeDefinition<_stripefs_v1_ListClientsRequest, _stripefs_v1_ListClientsRequest__Output>
      ListClientsResponse: MessageTypeDefinition<_stripefs_v1_ListClientsResponse, _stripefs_v1_ListClientsResponse__Output>
      ListObjectsRequest: MessageTypeDefinition<_stripefs_v1_ListObjectsRequest, _stripefs_v1_ListObjectsRequest__Output>
      ListObjectsResponse: MessageTypeDefinition<_stripefs_v1_ListObjectsResponse, _stripefs_v1_ListObjectsResponse__Output>
      ListXattrsRequest: MessageTypeDefinition<_stripefs_v1_ListXattrsRequest, _stripefs_v1_ListXattrsRequest__Output>
      ListXattrsResponse: MessageTypeDefinition<_stripefs_v1_ListXattrsResponse, _stripefs_v1_ListXattrsResponse__Output>
      ListedObject: MessageTypeDefinition<_stripefs_v1_ListedObject, _stripefs_v1_ListedObject__Output>
      MapBucket: MessageTypeDefinition<_stripefs_v1_MapBucket, _stripefs_v1_MapBucket__Output>
      MapOst: MessageTypeDefinition<_stripefs_v1_MapOst, _stripefs_v1_MapOst__Output>
      MarkStaleRequest: MessageTypeDefinition<_stripefs_v1_MarkStaleRequest, _stripefs_v1_MarkStaleRequest__Output>
      MarkStaleResponse: MessageTypeDefinition<_stripefs_v1_MarkStaleResponse, _stripefs_v1_MarkStaleResponse__Output>
      MdsService: SubtypeConstructor<typeof grpc.Client, _stripefs_v1_MdsServiceClient> & { service: _stripefs_v1_MdsServiceDefinition }
      MkdirRequest: MessageTypeDefinition<_stripefs_v1_MkdirRequest, _stripefs_v1_MkdirRequest__Output>
      MkdirResponse: MessageTypeDefinition<_stripefs_v1_MkdirResponse, _stripefs_v1_MkdirResponse__Output>
      ObjectDigest: MessageTypeDefinition<_stripefs_v1_ObjectDigest, _stripefs_v1_ObjectDigest__Output>
      ObjectRef: MessageTypeDefinition<_stripefs_v1_ObjectRef, _stripefs_v1_ObjectRef__Output>
      OpenManyRequest: MessageTypeDefinition<_stripefs_v1_OpenManyRequest, _stripefs_v1_OpenManyRequest__Output>
      OpenManyResponse: MessageTypeDefinition<_stripefs_v1_OpenManyResponse, _stripefs_v1_OpenManyResponse__Output>
      OpenManyResult: MessageTypeDefinition<_stripefs_v1_OpenManyResult, _stripefs_v1_OpenManyResult__Output>
      OpenRequest: MessageTypeDefinition<_stripefs_v1_OpenRequest, _stripefs_v1_OpenRequest__Output>
      OpenResponse: MessageTypeDefinition<_stripefs_v1_OpenResponse, _stripefs_v1_OpenResponse__Output>
      OssService: SubtypeConstructor<typeof grpc.Client, _stripefs_v1_OssServiceClient> & { service: _stripefs_v1_OssServiceDefinition }
      OstAction: EnumTypeDefinition
      OstAnnounce: MessageTypeDefinition<_stripefs_v1_OstAnnounce, _stripefs_v1_OstAnnounce__Output>
      OstHealth: MessageTypeDefinition<_stripefs_v1_OstHealth, _stripefs_v1_OstHealth__Output>
      OstState: MessageTypeDefinition<_stripefs_v1_OstState, _stripefs_v1_OstState__Output>
      PgRef: MessageTypeDefinition<_stripefs_v1_PgRef, _stripefs_v1_PgRef__Output>
      PingRequest: MessageTypeDefinition<_stripefs_v1_PingRequest, _stripefs_v1_PingRequest__Output>
      PingResponse: MessageTypeDefinition<_stripefs_v1_PingResponse, _stripefs_v1_PingResponse__Output>
      Pool: MessageTypeDefinition<_stripefs_v1_Pool, _stripefs_v1_Pool__Output>
      ReadAuditRequest: MessageTypeDefinition<_stripefs_v1_ReadAuditRequest, _stripefs_v1_ReadAuditRequest__Output>
      ReadAuditResponse: MessageTypeDefinition<_stripefs_v1_ReadAuditResponse, _stripefs_v1_ReadAuditResponse__Output>
      ReadRangeRequest: MessageTypeDefinition<_stripefs_v1_ReadRangeRequest, _stripefs_v1_ReadRangeRequest__Output>
      ReadRangeResponse: MessageTypeDefinition<_stripefs_v1_ReadRangeResponse, _stripefs_v1_ReadRangeResponse__Output>
      ReaddirRequest: MessageTypeDefinition<_stripefs_v1_ReaddirRequest, _stripefs_v1_ReaddirRequest__Output>
      ReaddirResponse: MessageTypeDefinition<_stripefs_v1_ReaddirResponse, _stripefs_v1_ReaddirResponse__Output>
      ReadlinkRequest: MessageTypeDefinition<_stripefs_v1_ReadlinkRequest, _stripefs_v1_ReadlinkRequest__Output>
      ReadlinkResponse: MessageTypeDefinition<_stripefs_v1_ReadlinkResponse, _stripefs_v1_ReadlinkResponse__Output>
      RecoverMode: EnumTypeDefinition
      RecoverPgRequest: MessageTypeDefinition<_stripefs_v1_RecoverPgRequest, _stripefs_v1_RecoverPgRequest__Output>
      RecoverPgResponse: MessageTypeDefinition<_stripefs_v1_RecoverPgResponse, _stripefs_v1_RecoverPgResponse__Output>
      RecoverSource: MessageTypeDefinition<_stripefs_v1_RecoverSource, _stripefs_v1_RecoverSource__Output>
      RegisterOssRequest: MessageTypeDefinition<_stripefs_v1_RegisterOssRequest, _stripefs_v1_RegisterOssRequest__Output>
      RegisterOssResponse: MessageTypeDefinition<_stripefs_v1_RegisterOssResponse, _stripefs_v1_RegisterOssResponse__Output>
      RegisteredOst: MessageTypeDefinition<_stripefs_v1_RegisteredOst, _stripefs_v1_RegisteredOst__Output>
      RemoveXattrRequest: MessageTypeDefinition<_stripefs_v1_RemoveXattrRequest, _stripefs_v1_RemoveXattrRequest__Output>
      RemoveXattrResponse: MessageTypeDefinition<_stripefs_v1_RemoveXattrResponse, _stripefs_v1_RemoveXattrResponse__Output>
      RenameRequest: MessageTypeDefinition<_stripefs_v1_RenameRequest, _stripefs_v1_RenameRequest__Output>
      RenameResponse: MessageTypeDefinition<_stripefs_v1_RenameResponse, _stripefs_v1_RenameResponse__Output>
      ReportAuditRequest: MessageTypeDefinition<_stripefs_v1_ReportAuditRequest, _stripefs_v1_ReportAuditRequest__Output>
      ReportAuditResponse: MessageTypeDefinition<_stripefs_v1_ReportAuditResponse, _stripefs_v1_ReportAuditResponse__Output>
      ReportBadChunkRequest: MessageTypeDefinition<_stripefs_v1_ReportBadChunkRequest, _stripefs_v1_ReportBadChunkRequest__Output>
      ReportBadChunkResponse: MessageTypeDefinition<_stripefs_v1_ReportBadChunkResponse, _stripefs_v1_ReportBadChunkResponse__Output>
      RmdirRequest: MessageTypeDefinition<_stripefs_v1_RmdirRequest, _stripefs_v1_RmdirRequest__Output>
      RmdirResponse: MessageTypeDefinition<_stripefs_v1_RmdirResponse, _stripefs_v1_RmdirResponse__Output>
      Rule: MessageTypeDefinition<_stripefs_v1_Rule, _stripefs_v1_Rule__Output>
      RuleKind: EnumTypeDefinition
      RuleStep: MessageTypeDefinition<_stripefs_v1_RuleStep, _stripefs_v1_RuleStep__Output>
      ScrubFinding: MessageTypeDefinition<_stripefs_v1_ScrubFinding, _stripefs_v1_ScrubFinding__Output>
      ScrubPgRequest: MessageTypeDefinition<_stripefs_v1_ScrubPgRequest, _stripefs_v1_ScrubPgRequest__Output>
      ScrubPgResponse: MessageTypeDefinition<_stripefs_v1_ScrubPgResponse, _stripefs_v1_ScrubPgResponse__Output>
      SetAttrRequest: MessageTypeDefinition<_stripefs_v1_SetAttrRequest, _stripefs_v1_SetAttrRequest__Output>
      SetAttrResponse: MessageTypeDefinition<_stripefs_v1_SetAttrResponse, _stripefs_v1_SetAttrResponse__Output>
      SetLayoutRequest: MessageTypeDefinition<_stripefs_v1_SetLayoutRequest, _stripefs_v1_SetLayoutRequest__Output>
      SetLayoutResponse: MessageTypeDefinition<_stripefs_v1_SetLayoutResponse, _stripefs_v1_SetLayoutResponse__Output>
      SetXattrRequest: MessageTypeDefinition<_stripefs_v1_SetXattrRequest, _stripefs_v1_SetXattrRequest__Output>
      SetXattrResponse: MessageTypeDefinition<_stripefs_v1_SetXattrResponse, _stripefs_v1_SetXattrResponse__Output>
      StaleCopies: MessageTypeDefinition<_stripefs_v1_StaleCopies, _stripefs_v1_StaleCopies__Output>
      StatManyRequest: MessageTypeDefinition<_stripefs_v1_StatManyRequest, _stripefs_v1_StatManyRequest__Output>
      StatManyResponse: MessageTypeDefinition<_stripefs_v1_StatManyResponse, _stripefs_v1_StatManyResponse__Output>
      StatManyResult: MessageTypeDefinition<_stripefs_v1_StatManyResult, _stripefs_v1_StatManyResult__Output>
      StatObjectRequest: MessageTypeDefinition<_stripefs_v1_StatObjectRequest, _stripefs_v1_StatObjectRequest__Output>
      StatObjectResponse: MessageTypeDefinition<_stripefs_v1_StatObjectResponse, _stripefs_v1_StatObjectResponse__Output>
      StatRequest: MessageTypeDefinition<_stripefs_v1_StatRequest, _stripefs_v1_StatRequest__Output>
      StatResponse: MessageTypeDefinition<_stripefs_v1_StatResponse, _stripefs_v1_StatResponse__Output>
      StatfsRequest: MessageTypeDefinition<_stripefs_v1_StatfsRequest, _stripefs_v1_StatfsRequest__Output>
      StatfsResponse: MessageTypeDefinition<_stripefs_v1_StatfsResponse, _stripefs_v1_StatfsResponse__Output>
      SymlinkRequest: MessageTypeDefinition<_stripefs_v1_SymlinkRequest, _stripefs_v1_SymlinkRequest__Output>
      SymlinkResponse: MessageTypeDefinition<_stripefs_v1_SymlinkResponse, _stripefs_v1_SymlinkResponse__Output>
      TicketKey: MessageTypeDefinition<_stripefs_v1_TicketKey, _stripefs_v1_TicketKey__Output>
      UnlinkManyRequest: MessageTypeDefinition<_stripefs_v1_UnlinkManyRequest, _stripefs_v1_UnlinkManyRequest__Output>
      UnlinkManyResponse: MessageTypeDefinition<_stripefs_v1_UnlinkManyResponse, _stripefs_v1_UnlinkManyResponse__Output>
      UnlinkManyResult: MessageTypeDefinition<_stripefs_v1_UnlinkManyResult, _stripefs_v1_UnlinkManyResult__Output>
      UnlinkRequest: MessageTypeDefinition<_stripefs_v1_UnlinkRequest, _stripefs_v1_UnlinkRequest__Output>
      UnlinkResponse: MessageTypeDefinition<_stripefs_v1_UnlinkResponse, _stripefs_v1_UnlinkResponse__Output>
      WatchMapRequest: MessageTypeDefinition<_stripefs_v1_WatchMapRequest, _stripefs_v1_WatchMapRequest__Output>
      WatchMapResponse: MessageTypeDefinition<_stripefs_v1_WatchMapResponse, _stripefs_v1_WatchMapResponse__Output>
      WriteChunkRequest: MessageTypeDefinition<_stripefs_v1_WriteChunkRequest, _stripefs_v1_WriteChunkRequest__Output>
      WriteChunkResponse: MessageTypeDefinition<_stripefs_v1_WriteChunkResponse, _stripefs_v1_WriteChunkResponse__Output>
      WriteHeader: MessageTypeDefinition<_stripefs_v1_WriteHeader, _stripefs_v1_WriteHeader__Output>
      XattrEntry: MessageTypeDefinition<_stripefs_v1_XattrEntry, _stripefs_v1_XattrEntry__Output>
      XattrSetMode: EnumTypeDefinition
    }
  }
}

