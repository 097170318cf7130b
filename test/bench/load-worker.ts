/** Worker-thread entry of load.ts: runs one {@link LoadJob} and posts its {@link LoadStats}. */
import { parentPort, workerData } from "node:worker_threads";
import { fire, type LoadJob } from "./load.ts";

parentPort!.postMessage(await fire(workerData as LoadJob));
