"""Read calls on a read-only mirror repo: downloads, listings, refs, commits, file system, 404s."""
import os

from hubcheck import check, done, sha256_file, spec
from huggingface_hub import HfApi, HfFileSystem, hf_hub_download, snapshot_download
from huggingface_hub.errors import EntryNotFoundError, RepositoryNotFoundError, RevisionNotFoundError

s = spec()
repo, pinned, files = s["repo"], s["pinned"], s["files"]  # files: path -> sha256
api = HfApi()
kw = {"repo_type": "dataset"}
main_sha = api.dataset_info(repo).sha


@check("hf_hub_download at a pinned commit")
def _():
    for path, sha in files.items():
        assert sha256_file(hf_hub_download(repo, path, revision=pinned, **kw)) == sha, path


@check("hf_hub_download at main")
def _():
    path = sorted(files)[0]
    assert sha256_file(hf_hub_download(repo, path, revision="main", **kw)) == files[path]


@check("snapshot_download with allow_patterns")
def _():
    # a cache of its own, so the files fetched above are not in the snapshot
    cache = os.path.join(os.environ["HF_HOME"], "snapshot-cache")
    local = snapshot_download(repo, revision=pinned, allow_patterns=["*validation*"], cache_dir=cache, **kw)
    got = sorted(os.path.relpath(os.path.join(d, f), local) for d, _, fs in os.walk(local) for f in fs)
    want = sorted(p for p in files if "validation" in p)
    assert want and got == want, (got, want)


@check("dataset_info")
def _():
    info = api.dataset_info(repo, revision=pinned)
    assert info.id == repo and info.sha == pinned
    assert sorted(x.rfilename for x in info.siblings) == sorted(files)


@check("dataset_info files_metadata=True gives size and lfs")
def _():
    info = api.dataset_info(repo, files_metadata=True)
    for sib in info.siblings:
        assert sib.size is not None and sib.lfs is not None, sib
        assert sib.lfs.sha256 == files[sib.rfilename] and sib.lfs.size == sib.size and sib.lfs.pointer_size > 0


@check("list_repo_refs")
def _():
    refs = api.list_repo_refs(repo, **kw)
    assert [(b.name, b.target_commit) for b in refs.branches] == [("main", main_sha)], refs


@check("get_paths_info")
def _():
    path = sorted(files)[0]
    [info] = api.get_paths_info(repo, [path], revision=pinned, **kw)
    assert info.path == path and info.lfs.sha256 == files[path]
    [expanded] = api.get_paths_info(repo, [path], revision=pinned, expand=True, **kw)
    assert expanded.last_commit is not None and expanded.security is not None


@check("list_repo_commits")
def _():
    commits = api.list_repo_commits(repo, **kw)
    assert [c.commit_id for c in commits] == [main_sha]


@check("list_repo_files (recursive=True)")
def _():
    assert sorted(api.list_repo_files(repo, **kw)) == sorted(files)


@check("list_repo_tree recursive and expanded")
def _():
    entries = list(api.list_repo_tree(repo, recursive=True, expand=True, **kw))
    got = {e.path: e.lfs.sha256 for e in entries if hasattr(e, "lfs")}
    assert got == files, got
    assert all(e.last_commit is not None for e in entries)


@check("HfFileSystem glob and find")
def _():
    fs = HfFileSystem()
    root = f"datasets/{repo}"
    want = sorted(f"{root}/{p}" for p in files)
    assert sorted(fs.glob(f"{root}/**/*.parquet")) == want
    assert sorted(fs.find(root)) == want
    path = sorted(files)[0]
    with fs.open(f"{root}/{path}", "rb") as f:
        assert len(f.read()) == fs.info(f"{root}/{path}")["size"]


@check("404s: repository, revision, entry")
def _():
    path = sorted(files)[0]
    for exc, call in [
        (RepositoryNotFoundError, lambda: hf_hub_download("nobody/nothing", "x.parquet", **kw)),
        (RevisionNotFoundError, lambda: api.dataset_info(repo, revision="no-such-branch")),
        (EntryNotFoundError, lambda: hf_hub_download(repo, f"{path}.missing", revision=pinned, **kw)),
    ]:
        try:
            call()
        except exc:
            continue
        raise AssertionError(f"expected {exc.__name__}")


done()
