// The partner's answer about the person (a script, which opaque-response blocking lets through).
var account = { balance: "4213" };
