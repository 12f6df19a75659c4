declare module "*.jsonl" {
  const text: string;
  export default text;
}
