"""The publish path a Python user takes with a built output folder: repo, one upload, a tag, read back."""
import os

import yaml
from hubcheck import check, done, sha256_file, spec
from huggingface_hub import DatasetCard, HfApi, snapshot_download

s = spec()
repo, out, tag = s["repo"], s["out"], s["tag"]
api = HfApi()
kw = {"repo_type": "dataset"}
local = {name: sha256_file(os.path.join(out, name)) for name in sorted(os.listdir(out))}
commits = lambda: [c.commit_id for c in api.list_repo_commits(repo, **kw)]  # noqa: E731
first = {}


@check("create_repo")
def _():
    api.create_repo(repo, **kw)


@check("upload_folder of the output folder (README.md validated first)")
def _():
    info = api.upload_folder(repo_id=repo, folder_path=out, commit_message="Publish", **kw)
    first["oid"] = info.oid
    assert commits()[0] == info.oid and len(commits()) == 2  # the repo's initial commit, then this one


@check("create_tag")
def _():
    api.create_tag(repo, tag=tag, revision=first["oid"], **kw)
    assert [(t.name, t.target_commit) for t in api.list_repo_refs(repo, **kw).tags] == [(tag, first["oid"])]


@check("the files on the tag, downloaded back, are byte-identical to the output folder")
def _():
    got = snapshot_download(repo, revision=tag, **kw)
    remote = {name: sha256_file(os.path.join(got, name)) for name in sorted(os.listdir(got)) if name != ".gitattributes"}
    assert remote == local, (remote, local)


@check("a second identical upload_folder makes no commit")
def _():
    before = commits()
    info = api.upload_folder(repo_id=repo, folder_path=out, commit_message="Publish again", **kw)
    assert commits() == before and info.oid == before[0]


@check("DatasetCard.load gives the card's licence")
def _():
    with open(os.path.join(out, "README.md"), encoding="utf-8") as f:
        want = yaml.safe_load(f.read().split("---\n")[1])["license"]
    assert want and DatasetCard.load(repo, repo_type="dataset").data.license == want


@check("dataset_info: cardData and file sizes")
def _():
    info = api.dataset_info(repo, revision=tag, files_metadata=True)
    assert info.card_data is not None and info.card_data.license == DatasetCard.load(repo, repo_type="dataset").data.license
    sizes = {x.rfilename: x.size for x in info.siblings if x.rfilename != ".gitattributes"}
    assert sizes == {name: os.path.getsize(os.path.join(out, name)) for name in local}


done()
