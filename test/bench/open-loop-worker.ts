/** Worker-thread entry of open-loop.ts: runs one {@link OpenLoopJob} and posts its stats. */
import { parentPort, workerData } from "node:worker_threads";
import { type OpenLoopJob, runOpenLoop } from "./open-loop.ts";

parentPort!.postMessage(await runOpenLoop(workerData as OpenLoopJob));
