"""The Hugging Face cache shared with the JS builder.

`fill`: download each file into the cache (HF_HUB_CACHE), as a Python user would.
`read`: with HF_HUB_OFFLINE=1, find each file a JS build cached, and scan_cache_dir finds nothing amiss.
"""
import os
import sys

from hubcheck import check, done, sha256_file, spec
from huggingface_hub import hf_hub_download, scan_cache_dir

s = spec()
mode = sys.argv[2]
files = s["files"]  # [{repo, revision, path, sha256}]


def fetch_all():
    for f in files:
        path = hf_hub_download(f["repo"], f["path"], revision=f["revision"], repo_type="dataset")
        assert sha256_file(path) == f["sha256"], f


if mode == "fill":
    check("hf_hub_download fills the cache")(fetch_all)
else:

    @check("HF_HUB_OFFLINE=1: hf_hub_download finds every file a JS build cached")
    def _():
        assert os.environ.get("HF_HUB_OFFLINE") == "1"
        fetch_all()

    @check("scan_cache_dir of the JS-filled cache: no warnings, every repo and revision")
    def _():
        info = scan_cache_dir()
        assert info.warnings == [], info.warnings
        seen = {(r.repo_id, rev.commit_hash) for r in info.repos for rev in r.revisions if r.repo_type == "dataset"}
        assert seen == {(f["repo"], f["revision"]) for f in files}, seen
        cached = {(r.repo_id, f.file_name) for r in info.repos for rev in r.revisions for f in rev.files}
        assert all((f["repo"], os.path.basename(f["path"])) in cached for f in files)

done()
