#!/usr/bin/env python3
"""The kernels' bits, held: the CLI's full JSON (outputs, every head's scores
and weights, and a 121-point sweep) for the configurations listed in
tests/kernel_bits.json must hash to the SHA-256 recorded there. The hashes
were written by the kernels as they were before their speed-ups, so any
change in the order or rounding of an operation, in any head width, mask
or scheme, shows up here as a different hash, and in the WebAssembly builds
through tests/node/kernel_bits.test.mjs, which reads the same file.

  kernel_bits.py POSLAB            check every configuration
  kernel_bits.py POSLAB --write    record the hashes (only when the numbers
                                   are meant to change)
"""
import hashlib
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, 'kernel_bits.json')

# the JSON config fields (as the JS wrapper takes them) and the CLI's options
OPTIONS = {'sentence_a': '--a', 'sentence_b': '--b', 'dim': '--dim', 'seed': '--seed', 'scheme': '--scheme',
           'scale': '--scale', 'heads': '--heads', 'model': '--model', 'layers': '--layers'}


def cli_args(config):
    args = ['--json', '--full']
    for key, value in config.items():
        if key == 'causal':
            args.append('--causal=' + ('true' if value else 'false'))
        elif key == 'sweep':
            args += ['--sweep', '%r:%r:%d' % (value['lo'], value['hi'], value['count'])]
        else:
            args += [OPTIONS[key], str(value)]
    return args


def main():
    poslab, write = sys.argv[1], '--write' in sys.argv[2:]
    with open(CASES) as f:
        cases = json.load(f)
    failed = 0
    for case in cases['cases']:
        run = subprocess.run([poslab] + cli_args(case['config']), capture_output=True, check=True)
        got = hashlib.sha256(run.stdout).hexdigest()
        if write:
            case['sha256'] = got
        elif got != case['sha256']:
            failed += 1
            print('FAIL %s: sha256 %s, recorded %s' % (case['name'], got, case['sha256']))
        else:
            print('ok   %s' % case['name'])
    if write:
        with open(CASES, 'w') as f:
            json.dump(cases, f, indent=1)
            f.write('\n')
        print('wrote %d hashes to %s' % (len(cases['cases']), CASES))
        return 0
    print('%d of %d configurations hold their bits' % (len(cases['cases']) - failed, len(cases['cases'])))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
