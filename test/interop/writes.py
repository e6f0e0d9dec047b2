"""Write calls on a repo the local Hub's store holds, and the refusals the Hub answers with."""
import warnings

from hubcheck import check, done, http_status, sha256_file, spec
from huggingface_hub import CommitOperationAdd, HfApi, hf_hub_download

s = spec()
repo, mirror_repo, parquet, card = s["repo"], s["mirror_repo"], s["parquet"], s["card"]
api = HfApi()
kw = {"repo_type": "dataset"}
commits = lambda: [c.commit_id for c in api.list_repo_commits(repo, **kw)]  # noqa: E731


@check("create_repo, and 409 for an existing one unless exist_ok")
def _():
    api.create_repo(repo, **kw)
    assert api.repo_exists(repo, **kw)
    assert http_status(lambda: api.create_repo(repo, **kw)) == 409
    api.create_repo(repo, exist_ok=True, **kw)


@check("upload_file, downloaded back")
def _():
    api.upload_file(path_or_fileobj=b"hello\n", path_in_repo="notes/hello.txt", repo_id=repo, **kw)
    with open(hf_hub_download(repo, "notes/hello.txt", **kw), "rb") as f:
        assert f.read() == b"hello\n"


@check("LFS upload and download")
def _():
    api.upload_file(path_or_fileobj=parquet, path_in_repo="data/train.parquet", repo_id=repo, **kw)
    [info] = api.get_paths_info(repo, ["data/train.parquet"], **kw)
    assert info.lfs is not None and info.lfs.sha256 == sha256_file(parquet)
    assert sha256_file(hf_hub_download(repo, "data/train.parquet", **kw)) == sha256_file(parquet)


@check("create_branch, and 409 for an existing one")
def _():
    api.create_branch(repo, branch="dev", **kw)
    assert "dev" in [b.name for b in api.list_repo_refs(repo, **kw).branches]
    assert http_status(lambda: api.create_branch(repo, branch="dev", **kw)) == 409


@check("create_tag and delete_tag, 409 for an existing tag")
def _():
    api.create_tag(repo, tag="t1", **kw)
    assert [t.name for t in api.list_repo_refs(repo, **kw).tags] == ["t1"]
    assert http_status(lambda: api.create_tag(repo, tag="t1", **kw)) == 409
    api.delete_tag(repo, tag="t1", **kw)
    assert api.list_repo_refs(repo, **kw).tags == []


@check("412 for a commit on a stale parent")
def _():
    stale = commits()[-1]
    op = CommitOperationAdd(path_in_repo="late.txt", path_or_fileobj=b"late\n")
    before = commits()
    assert http_status(lambda: api.create_commit(repo, [op], commit_message="late", parent_commit=stale, **kw)) == 412
    assert commits() == before


@check("403 for a write to a read-only mirror repo")
def _():
    assert http_status(lambda: api.upload_file(path_or_fileobj=b"x", path_in_repo="x.txt", repo_id=mirror_repo, **kw)) == 403


@check("validate-yaml: a good card is committed, and dataset_info gives its cardData")
def _():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an accepted card draws no warning either
        api.upload_file(path_or_fileobj=card.encode(), path_in_repo="README.md", repo_id=repo, **kw)
    data = api.dataset_info(repo).card_data
    assert data is not None and data.license == s["license"], data


@check("validate-yaml: a card with an unknown licence is refused before any commit")
def _():
    bad = card.replace(f"license: {s['license']}\n", "license: no-such-licence\n", 1)
    assert bad != card
    before = commits()
    try:
        api.upload_file(path_or_fileobj=bad.encode(), path_in_repo="README.md", repo_id=repo, **kw)
    except ValueError as e:
        assert "no-such-licence" in str(e), e
    else:
        raise AssertionError("the bad card was accepted")
    assert commits() == before


@check("validate-yaml: a card without front matter is committed with the Hub's warning")
def _():
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        api.upload_file(path_or_fileobj=b"# no metadata\n", path_in_repo="README.md", repo_id=repo, **kw)
    assert any("empty or missing yaml metadata" in str(w.message) for w in seen), [str(w.message) for w in seen]
    assert api.dataset_info(repo).card_data is None


done()
