export type {
  CloudFormationOptions,
  CloudFormationResource,
  CloudFormationTemplate,
  CloudFormationValue,
} from './cloudformation.ts';
export { generateCloudFormation, logicalId } from './cloudformation.ts';
export { snsDeliveryStatement, typeFilterPolicy } from './policies.ts';
