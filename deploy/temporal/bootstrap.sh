#!/bin/sh
# One-shot: the namespace and the typed search attributes the turn workflow upserts. Idempotent:
# describe before create, so re-running after an upgrade is harmless.
set -eu
ns="${TEMPORAL_NAMESPACE:-convengine}"
addr="${TEMPORAL_ADDRESS:-temporal:7233}"
until temporal operator cluster health --address "$addr"; do echo 'waiting for temporal'; sleep 3; done
temporal operator namespace describe -n "$ns" --address "$addr" >/dev/null 2>&1 ||
  temporal operator namespace create -n "$ns" --retention "${NAMESPACE_RETENTION:-720h}" --address "$addr"
existing=$(temporal operator search-attribute list -n "$ns" --address "$addr")
for pair in ConversationId=Keyword TurnNumber=Int Intent=Keyword State=Keyword TurnOutcome=Keyword ConfigVersion=Keyword; do
  name="${pair%%=*}"; type="${pair#*=}"
  echo "$existing" | grep -qw "$name" ||
    temporal operator search-attribute create -n "$ns" --name "$name" --type "$type" --address "$addr"
done
echo "namespace $ns ready"
