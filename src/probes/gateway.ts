// The gateway probe lives in gateway/: plan (tasks), litellm (requests), attribution, findings, words.
export { planGatewayTasks } from './gateway/plan.ts';
