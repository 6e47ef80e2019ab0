/**
 * A byte-level picture of a folder or an S3 prefix: every folder, every file with its mode and
 * sha256 (local), every object with its sha256 (S3). A refused command must leave it unchanged.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { GetObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';

export function treeBytes(root: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      const rel = relative(root, p);
      if (e.isDirectory()) {
        out.push(`${rel}/`);
        walk(p);
      } else if (!e.isFile()) {
        out.push(`${rel} ${e.isFIFO() ? 'fifo' : 'special'}`); // never read: opening a named pipe would wait for a writer
      } else {
        const mode = (statSync(p).mode & 0o7777).toString(8);
        out.push(`${rel} ${mode} ${createHash('sha256').update(readFileSync(p)).digest('hex')}`);
      }
    }
  };
  walk(root);
  return out.sort();
}

export async function bucketBytes(client: S3Client, bucket: string, prefix: string): Promise<string[]> {
  const out: string[] = [];
  let token: string | undefined;
  do {
    const page = await client.send(
      new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }),
    );
    for (const o of page.Contents ?? []) {
      const r = await client.send(new GetObjectCommand({ Bucket: bucket, Key: o.Key! }));
      out.push(
        `${o.Key} ${createHash('sha256')
          .update(await r.Body!.transformToByteArray())
          .digest('hex')}`,
      );
    }
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return out.sort();
}
