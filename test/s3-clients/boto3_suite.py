"""boto3 against the stripefs S3 gateway: round trips with sha256, multipart
through the transfer manager, presigned GET and PUT, a paginated listing of
10,000 keys, batch deletes, copies, ranges and a conditional create. Prints
one JSON object of what it saw; any mismatch raises (non-zero exit).

usage: boto3_suite.py ENDPOINT BUCKET WORKDIR KEY_COUNT
"""
import concurrent.futures
import hashlib
import json
import os
import ssl
import sys
import time
import urllib.error
import urllib.request

import boto3
import botocore
from boto3.s3.transfer import TransferConfig
from botocore.config import Config

endpoint, bucket, workdir, key_count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
s3 = boto3.client(
    "s3",
    endpoint_url=endpoint,
    region_name="us-east-1",
    config=Config(s3={"addressing_style": "path"}, retries={"max_attempts": 3}, max_pool_connections=32),
)
seen = {"boto3": boto3.__version__, "botocore": botocore.__version__, "seconds": {}}
phase_started = time.monotonic()


def phase_done(name):
    """Records how long a phase took (printed for whoever reads the log; nothing asserts it)."""
    global phase_started
    now = time.monotonic()
    seen["seconds"][name] = round(now - phase_started, 1)
    phase_started = now

tls = ssl.create_default_context(cafile=os.environ.get("AWS_CA_BUNDLE")) if endpoint.startswith("https") else None


def fetch(request):
    return urllib.request.urlopen(request, context=tls)


def sha256(data):
    return hashlib.sha256(data).hexdigest()


s3.create_bucket(Bucket=bucket)

# Round trips of several sizes, with metadata.
for size in (0, 1, 1024 * 1024 + 3):
    data = os.urandom(size)
    put = s3.put_object(Bucket=bucket, Key=f"rt/{size}", Body=data, ContentType="application/x-rt", Metadata={"size": str(size)})
    got = s3.get_object(Bucket=bucket, Key=f"rt/{size}")
    body = got["Body"].read()
    assert sha256(body) == sha256(data), f"round trip of {size} bytes"
    assert got["Metadata"] == {"size": str(size)}, got["Metadata"]
    assert got["ContentType"] == "application/x-rt"
    assert put["ETag"] == '"%s"' % hashlib.md5(data).hexdigest()
seen["roundTrips"] = 3
phase_done("roundTrips")

# Multipart through the transfer manager: 8 MiB parts, 10 threads (as awscli).
big = os.path.join(workdir, "boto3-big.bin")
with open(big, "wb") as f:
    f.write(os.urandom(40 * 1024 * 1024 + 12345))
config = TransferConfig(multipart_threshold=8 * 1024 * 1024, multipart_chunksize=8 * 1024 * 1024, max_concurrency=10)
s3.upload_file(big, bucket, "models/big.bin", Config=config)
back = os.path.join(workdir, "boto3-big.back")
s3.download_file(bucket, "models/big.bin", back, Config=config)
with open(big, "rb") as a, open(back, "rb") as b:
    assert sha256(a.read()) == sha256(b.read()), "multipart round trip"
head = s3.head_object(Bucket=bucket, Key="models/big.bin")
assert head["ETag"].endswith('-6"'), head["ETag"]
seen["multipartEtag"] = head["ETag"]
phase_done("multipart")

# Range.
ranged = s3.get_object(Bucket=bucket, Key="models/big.bin", Range="bytes=1000-1999")["Body"].read()
with open(big, "rb") as f:
    f.seek(1000)
    assert ranged == f.read(1000), "range get"

# Presigned GET and PUT, used with a plain HTTP client: boto3's default signature (V2 for
# presigning) and SigV4 (signature_version='s3v4').
v4 = boto3.client(
    "s3",
    endpoint_url=endpoint,
    region_name="us-east-1",
    config=Config(s3={"addressing_style": "path"}, signature_version="s3v4"),
)
expected = s3.get_object(Bucket=bucket, Key="rt/1")["Body"].read()
for signer, name in ((s3, "default"), (v4, "s3v4")):
    url = signer.generate_presigned_url("get_object", Params={"Bucket": bucket, "Key": "rt/1"}, ExpiresIn=300)
    with fetch(url) as response:
        assert response.read() == expected, name
    put_url = signer.generate_presigned_url("put_object", Params={"Bucket": bucket, "Key": f"presigned/{name}"}, ExpiresIn=300)
    # No Content-Type (urllib would add a form type): the V2 signature covers it, as in S3.
    put = urllib.request.Request(put_url, data=b"through a presigned PUT", method="PUT", headers={"Content-Type": ""})
    with fetch(put) as response:
        assert response.status == 200
    assert s3.get_object(Bucket=bucket, Key=f"presigned/{name}")["Body"].read() == b"through a presigned PUT"
    try:
        fetch(url.replace("rt/1", "rt/0"))
        raise AssertionError(f"a {name} presigned URL for another key was accepted")
    except urllib.error.HTTPError as err:
        assert err.code == 403, err.code
    seen["presigned" + ("V4" if name == "s3v4" else "Default")] = url.split("?")[1].split("=")[0]

# 10,000 keys, listed a page at a time.
keys = [f"many/{i:05d}" for i in range(key_count)]
with concurrent.futures.ThreadPoolExecutor(max_workers=32) as pool:
    list(pool.map(lambda k: s3.put_object(Bucket=bucket, Key=k, Body=k.encode()), keys))
phase_done("putKeys")
listed, pages = [], 0
for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix="many/", PaginationConfig={"PageSize": 1000}):
    pages += 1
    listed.extend(o["Key"] for o in page.get("Contents", []))
assert listed == keys, f"listed {len(listed)} keys"
seen["listedKeys"] = len(listed)
seen["listedPages"] = pages
v1 = [o["Key"] for page in s3.get_paginator("list_objects").paginate(Bucket=bucket, Prefix="many/") for o in page.get("Contents", [])]
assert v1 == keys, "V1 listing"
prefixes = s3.list_objects_v2(Bucket=bucket, Delimiter="/")
seen["topPrefixes"] = sorted(p["Prefix"] for p in prefixes.get("CommonPrefixes", []))
phase_done("listKeys")

# Batch deletes of 1,000.
for at in range(0, len(keys), 1000):
    result = s3.delete_objects(Bucket=bucket, Delete={"Objects": [{"Key": k} for k in keys[at : at + 1000]], "Quiet": True})
    assert not result.get("Errors"), result.get("Errors")
assert s3.list_objects_v2(Bucket=bucket, Prefix="many/")["KeyCount"] == 0
seen["deleted"] = len(keys)
phase_done("deleteKeys")

# Copy.
s3.copy_object(Bucket=bucket, Key="copies/big.bin", CopySource={"Bucket": bucket, "Key": "models/big.bin"})
assert s3.head_object(Bucket=bucket, Key="copies/big.bin")["ContentLength"] == os.path.getsize(big)
# The transfer manager's copy: above the threshold, parts copied with UploadPartCopy.
s3.copy({"Bucket": bucket, "Key": "models/big.bin"}, bucket, "copies/managed.bin", Config=config)
managed = s3.head_object(Bucket=bucket, Key="copies/managed.bin")
assert managed["ETag"].endswith('-6"'), managed["ETag"]
copied_back = os.path.join(workdir, "boto3-managed.back")
s3.download_file(bucket, "copies/managed.bin", copied_back, Config=config)
with open(big, "rb") as a, open(copied_back, "rb") as b:
    assert sha256(a.read()) == sha256(b.read()), "managed copy"
seen["managedCopyEtag"] = managed["ETag"]

# Conditional create (If-None-Match: *) where this boto3 has it.
try:
    s3.put_object(Bucket=bucket, Key="commit-marker", Body=b"1", IfNoneMatch="*")
    try:
        s3.put_object(Bucket=bucket, Key="commit-marker", Body=b"2", IfNoneMatch="*")
        raise AssertionError("a second conditional create succeeded")
    except botocore.exceptions.ClientError as err:
        assert err.response["Error"]["Code"] == "PreconditionFailed", err.response["Error"]
    seen["conditionalCreate"] = True
except botocore.exceptions.ParamValidationError:
    seen["conditionalCreate"] = "not in this boto3"

# Errors carry S3 codes.
try:
    s3.get_object(Bucket=bucket, Key="no/such/key")
except botocore.exceptions.ClientError as err:
    seen["missingKeyCode"] = err.response["Error"]["Code"]
print(json.dumps(seen))
