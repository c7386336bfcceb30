#!/usr/bin/env python3
"""Run Calculon's llm-optimal-execution search on a slice of its space, with a
wall-clock deadline, and report how far it got.

This does NOT reimplement Calculon's model or its search: it builds the same
task list as calculon/llm/optimal_execution.py (OptimalExecution.run_command at
commit caa4b11f8fe1fee3ba57adaacb7590d7deabd053), optionally keeping only the
tensor/pipeline parallel degrees given with --tp/--pp, and hands each task to
Calculon's own OptimalExecution.search() in a multiprocessing pool, exactly as
the CLI does. The differences from the CLI are:
  * tasks are consumed with imap (CLI order kept) instead of starmap, so that
    progress can be logged and the best-so-far survives a deadline;
  * --deadline S stops the pool after S seconds; executions inside tasks that
    were still running are lost (not counted), so counts and rates are lower
    bounds;
  * before the timed search, the space is counted with Calculon's own debug
    mode (search(debug=True, ...), which walks the loops without evaluating),
    so the fraction of the space evaluated can be reported.

Usage (PYTHONPATH must point at a Calculon checkout):
  calculon_slice.py APP NUM_PROCS MAX_BATCH DATATYPE SYSTEM OUT.json
                    [--tp 1,2,4,8] [--pp 1,2] [--deadline 600] [--cpus 2]
                    [--top-n 3] [--mbs-break] [--no-tp-overlap] [--no-dp-overlap]
"""

import argparse
import json
import logging
import multiprocessing as mp
import sys
import time

import calculon
from calculon.llm import Llm, System
from calculon.llm.optimal_execution import OptimalExecution
from calculon.util import arg_true_false_all


def build_params(args, app, syst, debug):
  """Same loops as OptimalExecution.run_command, plus the tp/pp filter."""
  params = []
  for tp in Llm.get_all_tensor_parallelisms(args.num_procs, app.hidden,
                                            app.attn_heads):
    if args.tp and tp not in args.tp:
      continue
    for pp in Llm.get_all_pipeline_parallelisms(args.num_procs, tp,
                                                app.num_blocks):
      if args.pp and pp not in args.pp:
        continue
      dp = Llm.get_data_parallelism(args.num_procs, tp, pp)
      for ppint in Llm.get_valid_pipeline_interleavings(app.num_blocks, pp):
        batch_size = OptimalExecution.get_batch_size(dp, args.max_batch_size)
        if batch_size is None:
          continue
        for activation_recompute in ['full', 'attn_only', 'none']:
          for optimizer_sharding in ([True, False] if dp > 1 else [False]):
            for tensor_par_comm_type in ['ar', 'p2p_rs_ag', 'rs_ag']:
              params.append(
                (debug, args.top_n, False, args.num_procs,
                 args.max_batch_size, args.datatype, app, syst, tp, pp, dp,
                 ppint, batch_size, activation_recompute, optimizer_sharding,
                 tensor_par_comm_type, args.fused_activation, args.mbs_break,
                 not args.no_tp_overlap, not args.no_dp_overlap))
  return params


def run_task(p):
  return OptimalExecution.search(*p)


def main():
  ap = argparse.ArgumentParser(description=__doc__,
                               formatter_class=argparse.RawTextHelpFormatter)
  ap.add_argument('application')
  ap.add_argument('num_procs', type=int)
  ap.add_argument('max_batch_size', type=int)
  ap.add_argument('datatype')
  ap.add_argument('system')
  ap.add_argument('output')
  ap.add_argument('--tp', type=lambda s: [int(x) for x in s.split(',')],
                  default=None, help='keep only these TP degrees')
  ap.add_argument('--pp', type=lambda s: [int(x) for x in s.split(',')],
                  default=None, help='keep only these PP degrees')
  ap.add_argument('--deadline', type=float, default=600.0,
                  help='stop after this many seconds of search')
  ap.add_argument('--cpus', type=int, default=2)
  ap.add_argument('--top-n', type=int, default=3)
  ap.add_argument('-m', '--mbs-break', action='store_true')
  ap.add_argument('-f', '--fused_activation', type=arg_true_false_all,
                  default='true')
  ap.add_argument('--no-tp-overlap', action='store_true')
  ap.add_argument('--no-dp-overlap', action='store_true')
  args = ap.parse_args()

  logging.basicConfig(level=logging.WARNING)
  app = Llm.Application(calculon.io.read_json_file(args.application))
  syst = System(calculon.io.read_json_file(args.system))

  # 1. Size of the space (Calculon's debug mode: loops only, no evaluation).
  t0 = time.time()
  sizes = [OptimalExecution.search(*p)[1]
           for p in build_params(args, app, syst, True)]
  space = sum(sizes)
  tcount = time.time() - t0
  params = build_params(args, app, syst, False)
  print(f'slice tp={args.tp or "all"} pp={args.pp or "all"}: {len(params)} '
        f'tasks, {space} executions (counted in {tcount:.1f} s)', flush=True)

  # 2. Timed search with a deadline.
  best, exe, good, bad, done = [], 0, 0, 0, 0
  per_tp_pp = {}
  start = time.time()
  finished = False
  pool = mp.Pool(args.cpus)
  try:
    it = pool.imap(run_task, params, chunksize=1)
    last_log = start
    while True:
      remaining = args.deadline - (time.time() - start)
      if remaining <= 0:
        break
      try:
        cbest, ec, gec, bec, tp, pp = it.next(timeout=remaining)
      except StopIteration:
        finished = True
        break
      except mp.TimeoutError:
        break
      done += 1
      exe += ec
      good += gec
      bad += bec
      best = OptimalExecution.update_list(best, cbest, args.top_n)
      k = f'tp{tp}_pp{pp}'
      d = per_tp_pp.setdefault(k, {'executions': 0, 'good': 0, 'best': None})
      d['executions'] += ec
      d['good'] += gec
      if cbest and (d['best'] is None or cbest[0][0] > d['best']):
        d['best'] = cbest[0][0]
      now = time.time()
      if now - last_log > 30:
        last_log = now
        print(f'  {now - start:7.1f} s: {done}/{len(params)} tasks, '
              f'{exe}/{space} executions, {exe / (now - start):.1f}/s, '
              f'best {best[0][0] if best else None}', flush=True)
  finally:
    elapsed = time.time() - start
    pool.terminate()
    pool.join()

  result = {
    'application': args.application, 'num_procs': args.num_procs,
    'max_batch_size': args.max_batch_size, 'datatype': args.datatype,
    'system': args.system, 'tp_filter': args.tp, 'pp_filter': args.pp,
    'deadline_s': args.deadline, 'cpus': args.cpus,
    'mbs_break': args.mbs_break,
    'tasks_total': len(params), 'tasks_done': done,
    'space_executions': space, 'executions_evaluated': exe,
    'good_executions': good, 'bad_executions': bad,
    'finished': finished, 'wall_s': round(elapsed, 2),
    'executions_per_s': round(exe / elapsed, 2) if elapsed > 0 else None,
    'per_tp_pp': per_tp_pp,
    'best': [{'sample_rate': r, 'execution': e, 'stats': s}
             for r, e, s in best],
  }
  with open(args.output, 'w') as fd:
    json.dump(result, fd, indent=2)
  print(f'{"finished" if finished else "DEADLINE HIT"}: {done}/{len(params)} '
        f'tasks, {exe}/{space} executions ({good} good, {bad} bad) in '
        f'{elapsed:.1f} s = {exe / elapsed:.1f} executions/s', flush=True)
  if best:
    r, e, s = best[0]
    print(f'best sample_rate {r:.3f} tp={e["tensor_par"]} '
          f'pp={e["pipeline_par"]} dp={e["data_par"]} '
          f'mbs={e["microbatch_size"]} recompute={e["activation_recompute"]} '
          f'ppint={e["pipeline_interleaving"]} '
          f'optshard={e["optimizer_sharding"]} '
          f'tpcomm={e["tensor_par_comm_type"]} '
          f'tpovl={e["tensor_par_overlap"]} dpovl={e["data_par_overlap"]} '
          f'offload(w/a/o)={e["weight_offload"]}/{e["activations_offload"]}/'
          f'{e["optimizer_offload"]}', flush=True)
  return 0


if __name__ == '__main__':
  sys.exit(main())
