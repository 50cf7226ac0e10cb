#!/bin/sh
# ci/targets.sh [--cases | --byte-format] - the fuzz targets' names, one a line,
# from harness/model/bytes/lf_targets.def (their one list): every script that loops over
# targets asks this.
#   --cases        only the targets whose inputs are cases (not the dump loaders')
#   --byte-format  only those in the byte format (AFL++ gives them lossfuzz's mutator)
cd "$(dirname "$0")/.." || exit 2
case ${1:-} in
'') kinds='[A-Z]*' ;;
--cases) kinds='\(CLASS\|PROB\|LINEAR\|JSON\)' ;;
--byte-format) kinds='\(CLASS\|PROB\|LINEAR\)' ;;
*) echo "usage: ci/targets.sh [--cases | --byte-format]" >&2; exit 2 ;;
esac
sed -n "s/^LF_FUZZ_TARGET(\([a-z_]*\), LF_TARGET_$kinds,.*/\1/p" harness/model/bytes/lf_targets.def
