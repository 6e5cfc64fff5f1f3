export type {
  S3BlobStoreClientOptions,
  S3BlobStoreConnectionOptions,
  S3BlobStoreOptions,
} from "./s3-blob-store.ts";
export { createS3BlobStore } from "./s3-blob-store.ts";
