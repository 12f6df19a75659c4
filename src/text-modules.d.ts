declare module "*.jsonl" {
  const text: string;
  export default text;
}
declare module "*.css" {
  const text: string;
  export default text;
}
