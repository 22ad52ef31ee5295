"""What a call is made of, shared by every wing: model items, specs, names, arguments, outputs, errors,
time limits, a call's tab scope, the capabilities the core is given and the events it emits."""
