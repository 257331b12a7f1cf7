// Two replicas of the bot on one SQLite journal file (as two processes on one machine would share
// it): the replica tests of replica-tests.ts.
import { replicaTests } from './replica-tests.ts';

replicaTests('SQLite');
