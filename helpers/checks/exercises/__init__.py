"""One file per exercise, the path following its id: NN/<name>.py is the check of NN.name."""
