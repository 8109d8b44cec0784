"""methods/toolmad"""
