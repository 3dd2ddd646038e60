// Who an OSS is and where it answers: what it registers with the MDS
// (oss/mds-link.ts) and what the MDS keeps of it (mds/cluster/state.ts).

export interface OssPlace {
  ossId: string;
  host: string;
  rack: string;
  datacenter: string;
  grpcAddress: string;
  bulkAddress: string;
  adminAddress: string;
  /** Addresses for clients outside the cluster network (oss.publicHost); absent or empty: the three above. */
  publicGrpcAddress?: string;
  publicBulkAddress?: string;
  publicAdminAddress?: string;
}
