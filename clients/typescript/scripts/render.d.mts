export function renderTypes(document: object): Promise<string>;
